// The view's end of the MCP Apps bridge: JSON-RPC over postMessage with the
// host's frame. It answers to window.view:
//   view.on('result', fn)   a tool result the host hands over (CallToolResult)
//   view.on('input', fn)    the arguments of the call being answered
//   view.on('context', fn)  the host's context: theme, locale, sizes
//   view.call(name, args)   asks the host to call a tool of this server;
//                           resolves with its CallToolResult
// The theme is set on <html data-theme>, the host's style variables as CSS
// custom properties, and the document's height is told to the host.
(function () {
  'use strict';
  var host = window.parent;
  var seq = 0;
  var waiting = {};
  var listeners = { result: [], input: [], context: [] };
  var send = function (m) { m.jsonrpc = '2.0'; host.postMessage(m, '*'); };
  var fire = function (kind, params) {
    listeners[kind].forEach(function (fn) {
      try { fn(params); } catch (e) { if (window.console) console.error(e); }
    });
  };
  var ask = function (method, params) {
    var id = ++seq;
    return new Promise(function (resolve, reject) {
      waiting[id] = { resolve: resolve, reject: reject };
      send({ id: id, method: method, params: params });
    });
  };
  var theme = function (ctx) {
    if (!ctx) return;
    if (ctx.theme) document.documentElement.setAttribute('data-theme', ctx.theme);
    var vars = ctx.styles && ctx.styles.variables;
    if (vars) Object.keys(vars).forEach(function (k) {
      if (vars[k] != null) document.documentElement.style.setProperty(k, vars[k]);
    });
  };
  window.addEventListener('message', function (e) {
    if (e.source !== host) return;
    var m = e.data;
    if (!m || m.jsonrpc !== '2.0') return;
    if (!m.method) {
      var w = waiting[m.id];
      if (!w) return;
      delete waiting[m.id];
      if (m.error) w.reject(new Error(m.error.message)); else w.resolve(m.result);
      return;
    }
    switch (m.method) {
      case 'ui/notifications/tool-result': fire('result', m.params); return;
      case 'ui/notifications/tool-input': fire('input', m.params); return;
      case 'ui/notifications/host-context-changed': theme(m.params); fire('context', m.params); return;
    }
    if (m.id === undefined) return;
    if (m.method === 'ui/resource-teardown' || m.method === 'ping') send({ id: m.id, result: {} });
    else send({ id: m.id, error: { code: -32601, message: 'the view does not answer ' + m.method } });
  });
  var told = 0;
  var tell = function () {
    var h = Math.ceil(document.documentElement.getBoundingClientRect().height);
    if (h === told) return;
    told = h;
    send({ method: 'ui/notifications/size-changed', params: { height: h } });
  };
  window.view = {
    context: {},
    on: function (kind, fn) { listeners[kind].push(fn); },
    call: function (name, args) { return ask('tools/call', { name: name, arguments: args || {} }); },
    ready: ask('ui/initialize', {
      appInfo: { name: document.title || 'view', version: '1' },
      appCapabilities: {},
      protocolVersion: '2026-01-26'
    }).then(function (r) {
      window.view.context = (r && r.hostContext) || {};
      theme(window.view.context);
      fire('context', window.view.context);
      send({ method: 'ui/notifications/initialized', params: {} });
      if (window.ResizeObserver) new ResizeObserver(tell).observe(document.documentElement);
      tell();
      return r;
    })
  };
})();
