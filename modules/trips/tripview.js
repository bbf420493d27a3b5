// The trip as a host shows it beside get_trip, create_trip, share_trip,
// the stage edits and get_stage: drawn from the result the host hands
// over (its structured content), and from nothing else. A choice made here
// asks the host to call a tool, with the version shown: a stale one is
// refused, and a confirmation asked for is shown to the person first.
var COLORS = ['#2d6a4f', '#bc4749', '#1d4e89', '#b5651d'];
var SVG = 'http://www.w3.org/2000/svg';
var trip = null, stage = null, lang = 'en', input = {};
var $ = function (id) { return document.getElementById(id); };
var w = function (key, args) {
  var t = (WORDS[lang] || WORDS.en)[key] || WORDS.en[key] || key;
  return t.replace(/\{(\w+)\}/g, function (_, k) { return args && args[k] != null ? args[k] : ''; });
};
var num = function (x, digits) { return Number(x || 0).toLocaleString(lang, { maximumFractionDigits: digits || 0 }); };
var el = function (tag, cls, text) {
  var e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text != null) e.textContent = text;
  return e;
};
var svg = function (tag, attrs) {
  var e = document.createElementNS(SVG, tag);
  for (var k in attrs) e.setAttribute(k, attrs[k]);
  return e;
};
var say = function (text) { $('said').textContent = text || ''; };

function alertWords(a) {
  if (!a) return { text: w('not_analysed'), cls: '' };
  var parts = [];
  if (a.critical) parts.push(w('alerts_critical', { n: a.critical }));
  if (a.warning) parts.push(w('alerts_warning', { n: a.warning }));
  if (a.nudge) parts.push(w('alerts_nudge', { n: a.nudge }));
  if (!parts.length) return { text: w('nothing'), cls: '' };
  return { text: parts.join(', '), cls: a.critical ? 'crit' : a.warning ? 'warn' : '' };
}

// drawMap projects the days' ends (and a start where a day starts
// elsewhere) onto the plane: one line for the route, a colour per day.
function drawMap(days) {
  var m = $('map');
  m.textContent = '';
  var pts = [], segs = [];
  days.forEach(function (d, i) {
    if (d.start || i === 0) pts.push({ p: d.start || d.end, day: -1 });
    segs.push({ from: pts.length - 1, to: pts.length, day: i });
    pts.push({ p: d.end, day: i });
  });
  var lat0 = pts.reduce(function (s, x) { return s + x.p[0]; }, 0) / pts.length;
  var k = Math.cos(lat0 * Math.PI / 180);
  var xs = pts.map(function (x) { return x.p[1] * k; }), ys = pts.map(function (x) { return -x.p[0]; });
  var minX = Math.min.apply(null, xs), maxX = Math.max.apply(null, xs), minY = Math.min.apply(null, ys), maxY = Math.max.apply(null, ys);
  var W = 600, H = 300, pad = 12, s = Math.min((W - 2 * pad) / ((maxX - minX) || 1), (H - 2 * pad) / ((maxY - minY) || 1));
  var at = function (i) { return [(pad + (xs[i] - minX) * s).toFixed(1), (pad + (ys[i] - minY) * s).toFixed(1)]; };
  H = Math.ceil(2 * pad + (maxY - minY) * s);
  m.setAttribute('viewBox', '0 0 ' + W + ' ' + Math.max(H, 40));
  m.appendChild(svg('polyline', { 'class': 'route', points: pts.map(function (_, i) { return at(i).join(','); }).join(' ') }));
  segs.forEach(function (g) {
    var a = at(g.from), b = at(g.to);
    var l = svg('line', { x1: a[0], y1: a[1], x2: b[0], y2: b[1], stroke: COLORS[g.day % COLORS.length] });
    l.appendChild(svg('title', {})).textContent = w('day_n', { day: g.day + 1 });
    m.appendChild(l);
  });
  pts.forEach(function (x, i) {
    if (x.day < 0) return;
    var a = at(i);
    m.appendChild(svg('circle', { cx: a[0], cy: a[1], r: 3 }));
  });
}

// drawProfile is the height gained since the start, day by day: what the
// days' climbs and descents give, along the distance ridden.
function drawProfile(days) {
  var p = $('profile');
  p.textContent = '';
  var xs = [0], hs = [0], km = 0, h = 0;
  days.forEach(function (d) { km += d.distance || 0; h += (d.ascent || 0) - (d.descent || 0); xs.push(km); hs.push(h); });
  var lo = Math.min.apply(null, hs), hi = Math.max.apply(null, hs), W = 600, H = 90;
  var X = function (x) { return (x / (km || 1) * W).toFixed(1); };
  var Y = function (y) { return (6 + (hi - y) / ((hi - lo) || 1) * (H - 12)).toFixed(1); };
  var d = 'M0,' + H;
  xs.forEach(function (x, i) { d += ' L' + X(x) + ',' + Y(hs[i]); });
  p.setAttribute('viewBox', '0 0 ' + W + ' ' + H);
  p.appendChild(svg('path', { d: d + ' L' + W + ',' + H + ' Z' }));
  $('profile-caption').textContent = w('profile_caption', { km: num(km, 1) });
}

function dayRow(d, i) {
  var li = el('li', 'day');
  li.dataset.stage = d.id;
  var head = el('div', 'facts');
  var sw = el('b');
  sw.style.background = COLORS[i % COLORS.length];
  head.appendChild(sw);
  var name = d.isRestDay ? w('rest_day', { day: i + 1 }) : w('day_n', { day: i + 1 });
  if (d.date) name += ' · ' + d.date;
  head.appendChild(el('strong', '', name));
  if (!d.isRestDay) head.appendChild(el('span', '', ' — ' + w('distance_climb', { km: num(d.distance, 1), climb: num(d.ascent) })));
  if (d.endLabel) head.appendChild(el('span', 'muted', ' → ' + d.endLabel));
  li.appendChild(head);
  li.appendChild(el('div', 'sleep', w('col_sleep') + ': ' + (d.accommodation || w('not_chosen'))));
  var al = alertWords(d.alerts);
  li.appendChild(el('div', 'alerts ' + al.cls, w('col_alerts') + ': ' + al.text));
  if (trip && !trip.isLocked && !d.isRestDay) {
    var b = el('button', 'rest', w('make_rest'));
    b.addEventListener('click', function () { act(b, 'edit_stages', { action: 'rest_day', id: trip.id, stageId: d.id, version: trip.version }); });
    li.appendChild(b);
  }
  return li;
}

function drawTrip(t) {
  trip = t;
  lang = (t.settings && t.settings.locale) || lang;
  document.documentElement.lang = lang;
  var days = t.days || [];
  $('title').textContent = (t.settings && t.settings.title) || w('untitled');
  var km = 0, climb = 0;
  days.forEach(function (d) { km += d.distance || 0; climb += d.ascent || 0; });
  $('summary').textContent = days.length ? w('summary', { days: days.length, km: num(km), climb: num(climb) }) : w('no_days');
  $('drawing').hidden = !days.length;
  if (days.length) { drawMap(days); drawProfile(days); }
  var list = $('days');
  list.textContent = '';
  days.forEach(function (d, i) { list.appendChild(dayRow(d, i)); });
  $('stage').hidden = true;
  var alerts = (t.alerts || []).map(function (a) { return a.message; }).join(' ');
  $('trip-alerts').textContent = alerts;
}

// drawStage shows one day in full, as get_stage answers it.
function drawStage(s) {
  stage = s;
  if (s.trip.locale) lang = s.trip.locale;
  document.documentElement.lang = lang;
  trip = trip || { id: s.trip.id };
  trip.version = s.trip.version;
  var box = $('stage');
  box.textContent = '';
  box.hidden = false;
  $('drawing').hidden = true;
  $('days').textContent = '';
  $('title').textContent = (s.isRestDay ? w('rest_day', { day: s.dayNumber }) : w('day_n', { day: s.dayNumber })) + (s.date ? ' · ' + s.date : '');
  $('summary').textContent = w('distance_climb', { km: num(s.distance, 1), climb: num(s.ascent) }) + ', ' + w('col_descent') + ' ' + num(s.descent) + ' m' +
    (s.startLabel || s.endLabel ? ' — ' + w('ends', { from: s.startLabel || '?', to: s.endLabel || '?' }) : '');
  var sel = s.selectedAccommodation;
  box.appendChild(el('p', 'sleep', w('col_sleep') + ': ' + (sel ? sel.name : s.accommodation || w('not_chosen'))));
  if (s.weather && s.weather.description) box.appendChild(el('p', '', s.weather.description));
  box.appendChild(el('h2', '', w('col_alerts')));
  var ul = el('ul');
  (s.alertDetails || []).forEach(function (a) { ul.appendChild(el('li', a.type === 'critical' ? 'alerts crit' : a.type === 'warning' ? 'alerts warn' : '', a.message)); });
  if (!s.alertDetails) ul.appendChild(el('li', '', w('not_analysed')));
  else if (!s.alertDetails.length) ul.appendChild(el('li', '', w('nothing')));
  box.appendChild(ul);
  if (s.accommodations && s.accommodations.length) {
    box.appendChild(el('h2', '', w('places')));
    var ol = el('ul', 'places');
    s.accommodations.forEach(function (a) {
      var li = el('li', 'place', a.name + (a.distanceToEndPoint != null ? ' · ' + num(a.distanceToEndPoint, 1) + ' km' : ''));
      var chosen = sel && sel.id === a.id;
      if (!s.trip.isLocked && !chosen) {
        var b = el('button', 'choose', w('sleep_here'));
        b.addEventListener('click', function () {
          act(b, 'choose_accommodation', { id: s.trip.id, stageId: s.id, accommodationId: a.id, version: s.trip.version });
        });
        li.appendChild(document.createTextNode(' '));
        li.appendChild(b);
      }
      ol.appendChild(li);
    });
    box.appendChild(ol);
  }
}

// act asks the host to call a tool; a confirmation asked for is shown,
// and sent back only when the person presses again. The trip is read
// again through the host once a change is made.
function act(button, tool, args) {
  button.disabled = true;
  view.call(tool, args).then(function (r) {
    var s = (r && r.structuredContent) || {};
    if (s.confirmation) {
      say((s.confirmation.impact && s.confirmation.impact.summary) || '');
      button.disabled = false;
      button.textContent = w('confirm');
      args.confirmationToken = s.confirmation.confirmationToken;
      return;
    }
    if (r.isError) { say(s.detail || s.title || w('refused')); button.disabled = false; return; }
    say(w('done'));
    refresh(20);
  }, function (e) { say(String(e.message || e)); button.disabled = false; });
}

// refresh reads again, through the host, what is shown (the day, or the
// trip); while it is being recomputed, again after a pause.
function refresh(tries) {
  var read = stage ? view.call('get_stage', { id: stage.trip.id, stageId: stage.id }) : view.call('get_trip', { id: trip.id });
  read.then(function (g) {
    var s = g && g.structuredContent;
    if (!s || g.isError) return;
    var busy = s.partial || (s.trip && s.trip.computing && s.trip.computing.length);
    if (busy && tries > 0) { setTimeout(function () { refresh(tries - 1); }, 1000 * Math.min(s.retryAfter || 1, 5)); return; }
    var note = $('said').textContent;
    show(s);
    if (note === w('done')) say('');
  });
}

function show(s) {
  if (!s) return;
  if (s.settings && s.settings.locale) lang = s.settings.locale;
  if (Array.isArray(s.days)) { stage = null; drawTrip(s); return; }
  if (s.settings && s.partial) { say(s.note || w('no_days')); if (!trip || !trip.days) $('summary').textContent = w('no_days'); return; }
  if (s.trip && s.dayNumber) { drawStage(s); return; }
  // A change (create_trip, an edit, share_trip) answers the version and
  // what comes next, not the days: the trip it names (the call's id, or
  // the created trip's) is read through the host, and drawn.
  var id = s.computationStatus ? s.id : input.id;
  if (s.url) say(w('shared_at', { url: s.url }));
  else if (s.next) say(s.next);
  if (!trip || !trip.days) $('summary').textContent = w('no_days');
  if (id) { trip = { id: id }; stage = null; refresh(20); }
}

view.on('context', function (c) { if (c && c.locale && !trip) { var l = c.locale.slice(0, 2); if (WORDS[l]) lang = l; } });
view.on('input', function (p) { input = (p && p.arguments) || {}; });
view.on('result', function (r) { if (r && !r.isError) show(r.structuredContent); });
