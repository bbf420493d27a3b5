// Preload (node --import) that gives the conformance suite a bearer token:
// every request to CAIRN_ORIGIN carries Authorization: Bearer CAIRN_TOKEN,
// and no request elsewhere does. The suite has no option of its own for
// it, and sends both with fetch and with undici's request (both go through
// undici's global dispatcher, which this replaces) and raw requests with
// node:http (which this wraps).
import http from 'node:http';
import { Agent, setGlobalDispatcher } from 'undici';

const origin = process.env.CAIRN_ORIGIN;
const token = process.env.CAIRN_TOKEN;

function withToken(headers) {
  if (Array.isArray(headers)) {
    for (let i = 0; i < headers.length; i += 2) {
      if (String(headers[i]).toLowerCase() === 'authorization') return headers;
    }
    return [...headers, 'authorization', `Bearer ${token}`];
  }
  const out = { ...(headers ?? {}) };
  if (!Object.keys(out).some((k) => k.toLowerCase() === 'authorization')) out.authorization = `Bearer ${token}`;
  return out;
}

if (origin && token) {
  setGlobalDispatcher(
    new Agent().compose((dispatch) => (opts, handler) => {
      if (new URL(String(opts.origin)).origin === origin) opts = { ...opts, headers: withToken(opts.headers) };
      return dispatch(opts, handler);
    }),
  );
}

// The suite also sends raw requests with node:http (its header-validation
// scenarios): they carry the token too, so what they test is the headers.
if (origin && token) {
  const request = http.request;
  http.request = function (options, ...rest) {
    if (options && typeof options === 'object' && !(options instanceof URL)) {
      const host = options.hostname ?? options.host;
      const port = options.port ? `:${options.port}` : '';
      if (`http://${host}${port}` === origin) options = { ...options, headers: withToken(options.headers) };
    }
    return request.call(this, options, ...rest);
  };
}
