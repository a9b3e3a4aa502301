// Requests to the Workbench server. Every /api/ call carries the session
// token from the page; the browser adds the Origin header itself.
const token = document.querySelector('meta[name="zoa-token"]').content;

async function call(method, path, body) {
  const init = { method, headers: { 'x-zoa-token': token } };
  if (body !== undefined) {
    init.headers['content-type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(path, init);
  } catch (e) {
    return { ok: false, status: 0, data: { error: `the Workbench server cannot be reached (${e.message})` } };
  }
  const type = res.headers.get('content-type') || '';
  const data = type.includes('json') ? await res.json() : await res.blob();
  return { ok: res.ok, status: res.status, data, headers: res.headers };
}

export const api = {
  get: (path) => call('GET', path),
  post: (path, body) => call('POST', path, body),
};

/// `path?key=value` with the value encoded.
export function withQuery(path, params) {
  const q = new URLSearchParams(params);
  return `${path}?${q}`;
}
