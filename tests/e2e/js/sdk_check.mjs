// frappe-js-sdk against a running `fw serve`, the SDK used exactly as published.
//
//   node sdk_check.mjs <base-url>
//   env: FW_USER (default Administrator), FW_PASSWORD, FW_API_KEY, FW_API_SECRET, FW_PREFIX (names of
//   the documents this run creates start with it)
//
// Prints one JSON object: every SDK call's result (or error) under a label. Exits 1 if any call that
// should succeed threw, or any call that should fail did not. tests/e2e/test_frappe_js_sdk.py
// asserts on the values.
//
// Two sessions are exercised:
//  - "session": loginWithUsernamePassword and the `sid` cookie. axios keeps no cookies in node (the
//    SDK relies on the browser's cookie jar via `withCredentials`), so a minimal jar is attached to
//    the SDK's own axios instance with interceptors: what a browser does, nothing more.
//  - "token": `new FrappeApp(url, {useToken: true, token: () => "key:secret", type: "token"})`.

import sdk from 'frappe-js-sdk';

const { FrappeApp } = sdk;

const url = process.argv[2] ?? process.env.FW_URL;
const user = process.env.FW_USER ?? 'Administrator';
const password = process.env.FW_PASSWORD;
const apiKey = process.env.FW_API_KEY;
const apiSecret = process.env.FW_API_SECRET;
const prefix = process.env.FW_PREFIX ?? 'SDK';
if (!url || !password || !apiKey || !apiSecret) {
  console.error('usage: FW_PASSWORD=.. FW_API_KEY=.. FW_API_SECRET=.. node sdk_check.mjs <base-url>');
  process.exit(2);
}

const summary = { sdk: null, url, results: {}, failures: [], requests: [] };
let currentLabel = null;
try {
  const { createRequire } = await import('node:module');
  summary.sdk = createRequire(import.meta.url)('frappe-js-sdk/package.json').version;
} catch {
  summary.sdk = 'unknown';
}

function errorInfo(e) {
  // the SDK throws getFrappeError(...): the response body spread, plus httpStatus/message/exception
  if (e && typeof e === 'object' && 'httpStatus' in e) {
    return { httpStatus: e.httpStatus, exception: e.exception, exc_type: e.exc_type, message: e.message,
             _server_messages: e._server_messages };
  }
  return { thrown: String(e?.stack ?? e) };
}

async function ok(label, fn) {
  currentLabel = label;
  try {
    const value = await fn();
    summary.results[label] = { ok: true, value: value === undefined ? null : value };
    return value;
  } catch (e) {
    summary.results[label] = { ok: false, error: errorInfo(e) };
    summary.failures.push(label);
    return undefined;
  }
}

async function fails(label, fn) {
  currentLabel = label;
  try {
    const value = await fn();
    summary.results[label] = { ok: false, unexpected_success: value === undefined ? null : value };
    summary.failures.push(label);
  } catch (e) {
    summary.results[label] = { ok: true, error: errorInfo(e) };
  }
}

// Whatever outcome: recorded, never a failure (for calls whose answer is informative only).
async function probe(label, fn) {
  currentLabel = label;
  try {
    const value = await fn();
    summary.results[label] = { ok: true, value: value === undefined ? null : value };
  } catch (e) {
    summary.results[label] = { ok: false, error: errorInfo(e) };
  }
}

// Records what the SDK actually put on the wire (method, URL with the serialised query, JSON body,
// status) per labelled call: the report of which endpoints and parameters the SDK uses.
function traceRequests(instance) {
  const record = (config, status) => {
    if (!config) return;
    let body = config.data;
    if (typeof body === 'string') {
      try { body = JSON.parse(body); } catch { /* not JSON */ }
    }
    const headers = config.headers ?? {};
    const auth = headers.Authorization ?? headers.authorization;
    summary.requests.push({
      label: currentLabel, method: String(config.method).toUpperCase(),
      url: decodeURIComponent(instance.getUri(config).replace(url, '')), body: body ?? null, status,
      auth: auth ? String(auth).split(' ')[0] : (headers.Cookie ? 'cookie' : null),
      content_type: headers['Content-Type'] ?? null,
    });
  };
  instance.interceptors.response.use(
    (res) => { record(res.config, res.status); return res; },
    (err) => { record(err?.config, err?.response?.status ?? 0); return Promise.reject(err); },
  );
}

function attachCookieJar(instance) {
  const jar = new Map();
  const store = (headers) => {
    const raw = headers?.['set-cookie'];
    for (const line of Array.isArray(raw) ? raw : raw ? [raw] : []) {
      const [pair, ...attrs] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired = attrs.some((a) => /^\s*max-age\s*=\s*0\s*$/i.test(a));
      if (expired || value === '' || value === '""') jar.delete(name);
      else jar.set(name, value);
    }
  };
  instance.interceptors.request.use((config) => {
    if (jar.size) config.headers.Cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
    return config;
  });
  instance.interceptors.response.use(
    (res) => { store(res.headers); return res; },
    (err) => { store(err?.response?.headers); return Promise.reject(err); },
  );
  return jar;
}

const CUSTOMER = 'Test Customer';

// The document operations every authenticated client runs; `p` keeps the two runs apart.
async function exercise(app, p) {
  const db = app.db();
  const call = app.call();
  const names = { alpha: `${p} Alpha`, beta: `${p} Beta`, gamma: `${p} Gamma` };
  const like = [['customer_name', 'like', `${p} %`]];

  await ok(`${p}.createDoc.alpha`, () => db.createDoc(CUSTOMER, { customer_name: names.alpha, region: 'North', credit_limit: 100 }));
  await ok(`${p}.createDoc.beta`, () => db.createDoc(CUSTOMER, { customer_name: names.beta, region: 'South', credit_limit: 50 }));
  await ok(`${p}.createDoc.gamma`, () => db.createDoc(CUSTOMER, { customer_name: names.gamma, region: 'North', credit_limit: 10 }));

  await ok(`${p}.getDocList.filtered`, () => db.getDocList(CUSTOMER, {
    fields: ['name', 'region', 'credit_limit'],
    filters: [...like, ['region', '=', 'North']],
    orderBy: { field: 'credit_limit', order: 'desc' },
    limit: 10,
  }));
  await ok(`${p}.getDocList.page`, () => db.getDocList(CUSTOMER, {
    fields: ['name'], filters: like, orderBy: { field: 'customer_name' }, limit_start: 1, limit: 1,
  }));
  await ok(`${p}.getDocList.orFilters`, () => db.getDocList(CUSTOMER, {
    fields: ['name'], filters: like, orFilters: [['region', '=', 'South'], ['credit_limit', '>', 90]],
    orderBy: { field: 'name', order: 'asc' },
  }));
  await ok(`${p}.getDocList.in`, () => db.getDocList(CUSTOMER, {
    fields: ['name'], filters: [['name', 'in', [names.alpha, names.gamma]]], orderBy: { field: 'name', order: 'asc' },
  }));
  await ok(`${p}.getDocList.asList`, () => db.getDocList(CUSTOMER, {
    fields: ['name', 'region'], filters: like, orderBy: { field: 'name', order: 'asc' }, asDict: false,
  }));
  await ok(`${p}.getDocList.default`, () => db.getDocList(CUSTOMER));
  // no orderBy: the SDK still sends `order_by=` (empty), which must mean the doctype's default order
  await ok(`${p}.getDocList.noOrder`, () => db.getDocList(CUSTOMER, { fields: ['name'], filters: like }));

  await ok(`${p}.getDoc`, () => db.getDoc(CUSTOMER, names.alpha));
  await ok(`${p}.updateDoc`, () => db.updateDoc(CUSTOMER, names.alpha, { region: 'West', credit_limit: 150 }));
  await ok(`${p}.getDoc.afterUpdate`, () => db.getDoc(CUSTOMER, names.alpha));
  await ok(`${p}.getCount`, () => db.getCount(CUSTOMER, like));
  await ok(`${p}.getCount.north`, () => db.getCount(CUSTOMER, [...like, ['region', '=', 'North']]));
  await ok(`${p}.getCount.all`, () => db.getCount(CUSTOMER));
  await ok(`${p}.getValue`, () => db.getValue(CUSTOMER, ['region', 'credit_limit'], [['name', '=', names.alpha]]));
  await ok(`${p}.getValue.single`, () => db.getValue(CUSTOMER, 'region', [['name', '=', names.beta]]));
  await ok(`${p}.setValue`, () => db.setValue(CUSTOMER, names.beta, 'region', 'East'));
  await ok(`${p}.setValue.object`, () => db.setValue(CUSTOMER, names.beta, { region: 'Central', credit_limit: 75 }));
  await ok(`${p}.getLastDoc`, () => db.getLastDoc(CUSTOMER, { filters: like }));

  await ok(`${p}.deleteDoc`, () => db.deleteDoc(CUSTOMER, names.gamma));
  await fails(`${p}.getDoc.deleted`, () => db.getDoc(CUSTOMER, names.gamma));
  await ok(`${p}.getCount.afterDelete`, () => db.getCount(CUSTOMER, like));

  await ok(`${p}.call.get.ping`, () => call.get('ping'));
  await ok(`${p}.call.post.get_value`, () => call.post('frappe.client.get_value',
    { doctype: CUSTOMER, fieldname: 'credit_limit', filters: { name: names.alpha } }));
  await ok(`${p}.call.get.get_value`, () => call.get('frappe.client.get_value',
    { doctype: CUSTOMER, fieldname: ['region', 'credit_limit'], filters: { name: names.beta } }));
  await ok(`${p}.call.get.get_list`, () => call.get('frappe.client.get_list',
    { doctype: CUSTOMER, fields: ['name'], filters: like, order_by: 'name asc', limit_page_length: 5 }));
  await ok(`${p}.call.put.set_value`, () => call.put('frappe.client.set_value',
    { doctype: CUSTOMER, name: names.beta, fieldname: 'region', value: 'Put' }));
  await ok(`${p}.call.delete.delete`, () => call.delete('frappe.client.delete', { doctype: CUSTOMER, name: names.beta }));
  await ok(`${p}.getCount.end`, () => db.getCount(CUSTOMER, like));
  return names;
}

// ---- cookie session ------------------------------------------------------------------------------
const sessionApp = new FrappeApp(url);
const jar = attachCookieJar(sessionApp.axios);
traceRequests(sessionApp.axios);
const sessionAuth = sessionApp.auth();

await fails('session.login.wrongPassword', () => sessionAuth.loginWithUsernamePassword({ username: user, password: `${password}-wrong` }));
await fails('session.getLoggedInUser.guest', () => sessionAuth.getLoggedInUser());
await ok('session.login', () => sessionAuth.loginWithUsernamePassword({ username: user, password }));
summary.results['session.cookies'] = { ok: true, value: [...jar.keys()].sort() };
await ok('session.getLoggedInUser', () => sessionAuth.getLoggedInUser());
await exercise(sessionApp, `${prefix}S`);
// an upload over the cookie session
const sessionUpload = await ok('session.uploadFile', async () => (await sessionApp.file().uploadFile(
  new File([Buffer.from('session bytes')], 'session.txt', { type: 'text/plain' }), { isPrivate: true },
)).data);
if (sessionUpload) {
  await ok('session.private.read', async () => Buffer.from((await sessionApp.axios.get(
    encodeURI(sessionUpload.message.file_url), { responseType: 'arraybuffer' })).data).toString());
}
// POST / {"cmd": "frappe.core.doctype.user.user.reset_password", "user": ...}: fw has no password
// reset by mail; the answer must be an honest error, not a silent 200
await probe('session.forgetPassword', () => sessionAuth.forgetPassword('nobody@example.com'));
await ok('session.logout', () => sessionAuth.logout());
summary.results['session.cookies.afterLogout'] = { ok: true, value: [...jar.keys()].sort() };
await fails('session.getLoggedInUser.afterLogout', () => sessionAuth.getLoggedInUser());

// ---- token auth --------------------------------------------------------------------------------
const tokenApp = new FrappeApp(url, { useToken: true, token: () => `${apiKey}:${apiSecret}`, type: 'token' });
traceRequests(tokenApp.axios);
const tokenAuth = tokenApp.auth();
const db = tokenApp.db();
await ok('token.getLoggedInUser', () => tokenAuth.getLoggedInUser());
await exercise(tokenApp, `${prefix}T`);

// single doctypes, rename, submit/cancel with a child table, errors
await probe('token.getSingleValue.unsaved', () => db.getSingleValue('Test Settings', 'max_items'));
await ok('token.updateDoc.single', () => db.updateDoc('Test Settings', 'Test Settings', { default_region: 'North', max_items: 7 }));
await ok('token.getDoc.single', () => db.getDoc('Test Settings', 'Test Settings'));
await ok('token.getSingleValue', () => db.getSingleValue('Test Settings', 'max_items'));
await ok('token.getSingleValue.data', () => db.getSingleValue('Test Settings', 'default_region'));
await fails('token.getSingleValue.unknownField', () => db.getSingleValue('Test Settings', 'no_such_field'));
await ok('token.renameDoc', async () => {
  await db.createDoc(CUSTOMER, { customer_name: `${prefix} Old`, region: 'North' });
  return db.renameDoc(CUSTOMER, `${prefix} Old`, `${prefix} New`);
});
await ok('token.getDoc.renamed', () => db.getDoc(CUSTOMER, `${prefix} New`));
const order = await ok('token.createDoc.order', () => db.createDoc('Test Order', {
  customer: `${prefix} New`, posting_date: '2025-03-01',
  items: [{ item: 'Widget', qty: 2, rate: 5 }, { item: 'Gadget', qty: 1, rate: 3 }],
}));
if (order) {
  await ok('token.submit', () => db.submit(order));
  await ok('token.cancel', () => db.cancel('Test Order', order.name));
  await fails('token.deleteDoc.submitted', async () => {
    const again = await db.createDoc('Test Order', { customer: `${prefix} New`, posting_date: '2025-03-02' });
    await db.submit(again);
    return db.deleteDoc('Test Order', again.name);
  });
}
await fails('token.createDoc.missingMandatory', () => db.createDoc(CUSTOMER, { region: 'Nowhere' }));
await fails('token.createDoc.duplicate', () => db.createDoc(CUSTOMER, { customer_name: `${prefix} New` }));
await fails('token.getDoc.missing', () => db.getDoc(CUSTOMER, `${prefix} Does Not Exist`));
await fails('token.getDocList.badField', () => db.getDocList(CUSTOMER, { fields: ['no_such_field'] }));
await fails('token.call.notWhitelisted', () => tokenApp.call().get('os.system', { command: 'true' }));

// ---- files: file.uploadFile (multipart to /api/method/upload_file), read back over /files and /private/files
// (an Attach Image field is added to Test Customer for the upload to set)
const bytesOf = (res) => Buffer.from(res.data).toString('base64');
const fileHeaders = (res) => Object.fromEntries(['content-type', 'content-length', 'etag', 'cache-control',
  'x-content-type-options', 'content-disposition'].map((h) => [h, res.headers[h] ?? null]));
await ok('files.customField', () => db.createDoc('Custom Field', {
  dt: CUSTOMER, fieldname: 'logo', fieldtype: 'Attach Image', label: 'Logo', insert_after: 'region',
}));
await ok('files.createDoc', () => db.createDoc(CUSTOMER, { customer_name: `${prefix} Files`, region: 'North' }));
const logo = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex');
const uploadedPrivate = await ok('files.uploadFile.private', async () => (await tokenApp.file().uploadFile(
  new File([logo], 'logo.png', { type: 'image/png' }),
  { isPrivate: true, doctype: CUSTOMER, docname: `${prefix} Files`, fieldname: 'logo' },
)).data);
await ok('files.getDoc.afterUpload', () => db.getDoc(CUSTOMER, `${prefix} Files`));
if (uploadedPrivate) {
  const fileUrl = uploadedPrivate.message.file_url;
  await ok('files.private.read', async () => {
    const res = await tokenApp.axios.get(encodeURI(fileUrl), { responseType: 'arraybuffer' });
    return { status: res.status, base64: bytesOf(res), headers: fileHeaders(res) };
  });
  // the same URL without credentials: refused
  await probe('files.private.guest', async () => (await fetch(`${url}${encodeURI(fileUrl)}`)).status);
}
const uploadedPublic = await ok('files.uploadFile.public', async () => (await tokenApp.file().uploadFile(
  new File([Buffer.from('hello from the sdk')], 'hello sdk.txt', { type: 'text/plain' }), { isPrivate: false },
)).data);
if (uploadedPublic) {
  const fileUrl = uploadedPublic.message.file_url;
  await ok('files.public.read', async () => {
    const res = await fetch(`${url}${encodeURI(fileUrl)}`);  // no credentials needed
    return { status: res.status, text: await res.text(), etag: res.headers.get('etag'),
             nosniff: res.headers.get('x-content-type-options') };
  });
}
await fails('files.uploadFile.notAttachField', () => tokenApp.file().uploadFile(
  new File([Buffer.from('x')], 'x.txt'), { doctype: CUSTOMER, docname: `${prefix} Files`, fieldname: 'region' },
));

const badToken = new FrappeApp(url, { useToken: true, token: () => `${apiKey}:wrong-secret`, type: 'token' });
await fails('badToken.getLoggedInUser', () => badToken.auth().getLoggedInUser());

summary.ok = summary.failures.length === 0;
process.stdout.write(`${JSON.stringify(summary, null, 1)}\n`);
process.exit(summary.ok ? 0 : 1);
