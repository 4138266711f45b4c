// The CloudFront functions, run by node's test runner (`make test` runs it from
// tests/infra/test_cloudfront_functions.py, which also hands it cases made from a page the
// Python publisher published: SITE_ROUTING_CASES).
'use strict';

const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const test = require('node:test');
const vm = require('node:vm');

const ID = '01234567-89ab-cdef-0123-456789abcdef';

// A function's handler, with CloudFront's `cloudfront` module played by `kvs` (key -> value)
// and a record of the origin it chose.
function load(file, kvs) {
    const source = fs.readFileSync(path.join(__dirname, file), 'utf8');
    const chosen = { origin: null, stores: [] };
    const cf = {
        kvs(id) {
            chosen.stores.push(id);
            return {
                async get(key) {
                    if (!Object.prototype.hasOwnProperty.call(kvs || {}, key)) {
                        throw new Error('KeyNotFound');
                    }
                    return kvs[key];
                },
            };
        },
        selectRequestOriginById(id) {
            chosen.origin = id;
        },
    };
    const code = source.replace(/^import cf from 'cloudfront';$/m, '').replace('__HOSTS_STORE_ID__', ID);
    const context = vm.createContext({ cf });
    vm.runInContext(code + '\nglobalThis.handler = handler;', context);
    return { handler: context.handler, chosen };
}

function viewerRequest(method, host, uri, query) {
    const request = { method, uri, headers: {}, querystring: {}, cookies: {} };
    if (host !== null) {
        request.headers.host = { value: host };
    }
    request.rawQueryString = () => query;
    return { version: '1.0', context: { eventType: 'viewer-request' }, viewer: { ip: '192.0.2.1' }, request };
}

// Where the viewer-request function sends one request: the bucket (with the object's URI),
// the app (with the request as sent), or its own answer.
async function route(kvs, method, host, target) {
    const [uri, query] = target.split('?');
    const { handler, chosen } = load('viewer-request.js', kvs);
    const event = viewerRequest(method, host, uri, query === undefined ? undefined : query);
    const result = await handler(event);
    assert.deepEqual(chosen.stores, [ID]);
    if (result.statusCode !== undefined) {
        return { answer: result.statusCode, body: result.body.data };
    }
    const forwarded = result.headers['x-forwarded-host'];
    return {
        origin: chosen.origin || 'site',
        uri: result.uri,
        query: Object.keys(result.querystring).length,
        host: forwarded ? forwarded.value : null,
    };
}

const PAGE = '01hzy8k2m3n4p5q6';
const STORE = {
    ['s/' + PAGE]: PAGE,
    's/acme': PAGE,
    'hosts/acme.status.example.com': PAGE,
    'hosts/status.acme.com': PAGE,
    ['p/' + PAGE]: JSON.stringify({
        i: ['01hzy9aaaaaaaaaa'],
        k: ['history?quarter=2026-Q3', 'subscribe?via=email', 'subscribe?via=sms'],
    }),
    's/secret': 'hidden0000000000',
    'hosts/secret.status.example.com': 'hidden0000000000',
    'p/hidden0000000000': JSON.stringify({ d: 1, t: 1 }),
};

test('a page at the root of its host reads its own objects', async () => {
    assert.deepEqual(await route(STORE, 'GET', 'acme.status.example.com', '/'), {
        origin: 'site', uri: '/hosts/acme.status.example.com/index.html', query: 0,
        host: 'acme.status.example.com',
    });
    const custom = await route(STORE, 'GET', 'Status.ACME.com.:443', '/api/v2/summary.json');
    assert.equal(custom.uri, '/hosts/status.acme.com/api/v2/summary.json');
    assert.equal((await route(STORE, 'HEAD', 'status.acme.com', '/history/')).uri,
        '/hosts/status.acme.com/history.html');
});

test('a page under /s/ reads the objects of that place, on any host', async () => {
    assert.equal((await route(STORE, 'GET', 'd111.cloudfront.net', '/s/acme')).uri, '/s/acme/index.html');
    assert.equal((await route(STORE, 'GET', null, `/s/${PAGE}/history.rss`)).uri,
        `/s/${PAGE}/history.rss`);
    assert.equal((await route(STORE, 'GET', 'x', `/s/${PAGE}/incidents/01hzy9aaaaaaaaaa`)).uri,
        `/s/${PAGE}/incidents/01hzy9aaaaaaaaaa.html`);
});

test('a published variant is its own object; the query is dropped from the cache key', async () => {
    const quarter = await route(STORE, 'GET', 'x', '/s/acme/history?quarter=2026-Q3&utm=1');
    assert.deepEqual([quarter.origin, quarter.uri, quarter.query],
        ['site', '/s/acme/history%40quarter%3D2026-Q3.html', 0]);
    assert.equal((await route(STORE, 'GET', 'status.acme.com', '/subscribe?via=sms')).uri,
        '/hosts/status.acme.com/subscribe%40via%3Dsms.html');
    assert.equal((await route(STORE, 'GET', 'x', '/s/acme?other=1')).uri, '/s/acme/index.html');
});

test('unknown hosts and places go to the app as sent, with the reader host', async () => {
    assert.deepEqual(await route(STORE, 'GET', 'nobody.status.example.com', '/history?quarter=2026-Q1'), {
        origin: 'app', uri: '/history', query: 0, host: 'nobody.status.example.com',
    });
    assert.equal((await route(STORE, 'GET', 'x', '/s/nobody/history')).origin, 'app');
    assert.equal((await route(STORE, 'GET', null, '/')).origin, 'app');
    assert.equal((await route(STORE, 'GET', '[::1]:8000', '/')).origin, 'app');
    assert.equal((await route(STORE, 'GET', 'x', '/s/Not_A_Ref/history')).origin, 'app');
});

test('paths the files do not hold go to the app', async () => {
    const app = async (method, host, target) => (await route(STORE, method, host, target)).origin;
    assert.equal(await app('GET', 'x', '/s/acme/history?quarter=2025-Q4'), 'app'); // older quarter
    assert.equal(await app('GET', 'x', '/s/acme/history?month=2026-08'), 'app');
    assert.equal(await app('GET', 'x', '/s/acme/history?quarter=2026-Q3&month=2026-08'), 'app');
    assert.equal(await app('GET', 'x', '/s/acme/incidents/01hzy0oldoldold0'), 'app'); // > 15 days
    assert.equal(await app('GET', 'x', '/s/acme/incidents/01hzy9aaaaaaaaaa/x'), 'app');
    assert.equal(await app('GET', 'status.acme.com', '/sign-in'), 'app');
    assert.equal(await app('GET', 'x', '/s/acme/subscriptions/t0ken/manage'), 'app');
    assert.equal(await app('GET', 'x', '/s/acme/site.json'), 'app');
    assert.equal(await app('POST', 'status.acme.com', '/subscribe'), 'app');
    assert.equal(await app('POST', 'x', '/s/acme/subscribe'), 'app');
    assert.equal(await app('GET', 'x', '/s/secret'), 'app'); // private or audience-specific
    assert.equal(await app('GET', 'secret.status.example.com', '/api/v2/summary.json'), 'app');
});

test('a path that tries to leave its place is a 404 and reaches neither origin', async () => {
    for (const target of ['/s/acme/../x', '/s/acme/%2e%2e/x', '/s/acme/a%2fb', '/s/acme//x',
        '/s/acme/.env', '/s/acme/%00', '/s/acme/a\\b']) {
        const answer = await route(STORE, 'GET', 'x', target);
        assert.equal(answer.answer, 404, target);
        assert.deepEqual(JSON.parse(answer.body), { error: 'The requested resource could not be found' });
    }
    assert.equal((await route(STORE, 'GET', 'status.acme.com', '/../../s/other/x')).answer, 404);
    assert.equal((await route(STORE, 'GET', 'status.acme.com', '/%2E%2E/hosts')).answer, 404);
    // A host no page has: the app answers (as the local front hands it over).
    assert.equal((await route(STORE, 'GET', 'nobody.example', '/../x')).origin, 'app');
    // Another method goes to the app before any look at the path, as locally.
    assert.equal((await route(STORE, 'POST', 'x', '/s/acme/../x')).origin, 'app');
});

test('the store is asked once per place and page, and its absence is the app', async () => {
    assert.equal((await route({}, 'GET', 'acme.status.example.com', '/')).origin, 'app');
    const noRecord = { 's/acme': PAGE };
    assert.equal((await route(noRecord, 'GET', 'x', '/s/acme')).origin, 'app');
});

test('the function fits CloudFront: at most 10 KB of code', () => {
    for (const file of ['viewer-request.js', 'viewer-response.js']) {
        const size = fs.readFileSync(path.join(__dirname, file)).length + ID.length;
        assert.ok(size <= 10240, `${file}: ${size} bytes`);
    }
});

function viewerResponse(statusCode, headers) {
    const response = { statusCode, statusDescription: 'OK', headers: {} };
    for (const name of Object.keys(headers)) {
        response.headers[name] = { value: headers[name] };
    }
    const { handler } = load('viewer-response.js', {});
    const result = handler({ version: '1.0', context: { eventType: 'viewer-response' }, request: {}, response });
    const flat = {};
    for (const name of Object.keys(result.headers)) {
        flat[name] = result.headers[name].value;
    }
    return { status: result.statusCode, headers: flat };
}

test('an object answers with its own headers and status, not the bucket metadata', () => {
    const answer = viewerResponse(200, {
        'content-type': 'application/rss+xml',
        'cache-control': 'public, max-age=10, stale-while-revalidate=30, stale-if-error=86400',
        'x-amz-meta-content-security-policy': "default-src 'none'",
        'x-amz-meta-access-control-allow-origin': '*',
        'x-amz-meta-status': '404',
        'x-amz-meta-content-sha256': 'ab'.repeat(32),
        'x-amz-version-id': 'v1',
        'x-amz-server-side-encryption': 'AES256',
        etag: '"abc"',
    });
    assert.deepEqual(answer, {
        status: 404,
        headers: {
            'content-type': 'application/rss+xml',
            'cache-control': 'public, max-age=10',
            'content-security-policy': "default-src 'none'",
            'access-control-allow-origin': '*',
            etag: '"abc"',
        },
    });
});

test('answers of the app and conditional answers keep their status', () => {
    assert.equal(viewerResponse(304, { 'x-amz-meta-status': '404' }).status, 304);
    const app = viewerResponse(401, { 'cache-control': 'no-store', 'set-cookie': 'a=b' });
    assert.deepEqual(app, { status: 401, headers: { 'cache-control': 'no-store', 'set-cookie': 'a=b' } });
});

test('cases made from a page the Python publisher published', { skip: !process.env.SITE_ROUTING_CASES }, async () => {
    const table = JSON.parse(fs.readFileSync(process.env.SITE_ROUTING_CASES, 'utf8'));
    assert.ok(table.cases.length > 20);
    for (const one of table.cases) {
        const got = await route(table.kvs, one.method, one.host, one.target);
        const want = one.expect;
        const seen = want.answer !== undefined ? { answer: got.answer } : { origin: got.origin, uri: got.uri };
        assert.deepEqual(seen, want, `${one.method} ${one.host} ${one.target}`);
    }
});
