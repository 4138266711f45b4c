import cf from 'cloudfront';

// The published site's front on CloudFront (viewer request; runtime cloudfront-js-2.0).
// A page's place, /s/{ref}/... on any host or the root of its own host, is looked up in the
// KeyValueStore the publisher keeps (chalicelib/sitestore/hosts.py): place -> page id, then
// p/{page id} -> the paths it publishes. A published path is rewritten to its object in the
// bucket, named as publish.py names the file (site.File.name); the local front decides the
// same from the manifest (chalicelib/local/site_files.py). Everything else goes to the app
// as the reader sent it, with the reader's host in x-forwarded-host (API Gateway sees its
// own). CloudFront Functions take at most 10 KB of code: comments count.

const hosts = cf.kvs('__HOSTS_STORE_ID__');
const APP = 'app';
const VARIANT_KEYS = ['quarter', 'month', 'metric_period', 'via', 'before'];
const MAX_QUERY_FIELDS = 100;
// What every page the files answer publishes (hosts.ALWAYS); the store names the rest.
const ALWAYS = [
    '', 'history', 'history.rss', 'history.atom', 'embed/status.js', 'favicon.ico',
    'subscribe', 'api/v2/summary.json', 'api/v2/status.json', 'api/v2/components.json',
    'api/v2/incidents.json', 'api/v2/incidents/unresolved.json',
    'api/v2/scheduled-maintenances.json', 'api/v2/scheduled-maintenances/upcoming.json',
    'api/v2/scheduled-maintenances/active.json',
];
const INCIDENTS = 'incidents/';
const REF = /^[a-z0-9][a-z0-9-]{0,62}$/;
const HOST = /^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$/;
// Empty segments, encoded separators and NUL: no public path has them.
const UNSAFE = /\/\/|\\|%2f|%5c|%00|\x00/i;
const NOT_FOUND = '{"error": "The requested resource could not be found"}';

async function handler(event) {
    const request = event.request;
    const host = hostName(request.headers.host ? request.headers.host.value : '');
    if (host) {
        request.headers['x-forwarded-host'] = { value: host };
    } else {
        delete request.headers['x-forwarded-host'];
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
        return toApp(request);
    }
    const uri = request.uri;
    let folder;
    let rel;
    if (uri.indexOf('/s/') === 0) {
        if (unsafe(uri)) {
            return notFound();
        }
        const rest = uri.slice(3);
        const slash = rest.indexOf('/');
        const ref = slash < 0 ? rest : rest.slice(0, slash);
        if (!REF.test(ref)) {
            return toApp(request);
        }
        folder = 's/' + ref;
        rel = slash < 0 ? '' : rest.slice(slash + 1);
    } else {
        if (!host) {
            return toApp(request);
        }
        folder = 'hosts/' + host;
        rel = uri;
    }
    let record;
    try {
        const page = await hosts.get(folder);
        record = JSON.parse(await hosts.get('p/' + page));
    } catch (e) {
        return toApp(request); // not published here, not yet, or no longer
    }
    if (record.d) {
        return toApp(request); // answered by the app: private or audience-specific
    }
    if (folder.charAt(0) === 'h' && unsafe(uri)) {
        return notFound();
    }
    const variant = variantOf(request);
    if (variant === null) {
        return toApp(request); // two variant keys at once: the app decides
    }
    const key = unquote(rel).replace(/^\/+|\/+$/g, '') + variant;
    if (!published(record, key)) {
        return toApp(request);
    }
    request.uri = '/' + folder + '/' + fileName(key).split('/').map(encodeURIComponent).join('/');
    request.querystring = {};
    return request;
}

function toApp(request) {
    cf.selectRequestOriginById(APP);
    return request;
}

function notFound() {
    return {
        statusCode: 404,
        statusDescription: 'Not Found',
        headers: {
            'content-type': { value: 'application/json' },
            'cache-control': { value: 'no-store' },
        },
        body: { encoding: 'text', data: NOT_FOUND },
    };
}

function hostName(host) {
    const name = host.split(':')[0].trim().toLowerCase().replace(/\.+$/, '');
    return HOST.test(name) ? name : null;
}

function unsafe(path) {
    if (UNSAFE.test(path)) {
        return true;
    }
    const decoded = unquote(path);
    return decoded.indexOf('/.') >= 0 || decoded.indexOf('\x00') >= 0;
}

// Python's unquote: each run of %XX decoded as UTF-8, one that is not UTF-8 as U+FFFD.
function unquote(text) {
    return text.replace(/(%[0-9a-fA-F]{2})+/g, function (run) {
        try {
            return decodeURIComponent(run);
        } catch (e) {
            return '\ufffd';
        }
    });
}

// '?name=value' of the one variant key of the query, '' for none, null for more than one:
// as the local front parses it (parse_qsl, blank values kept).
function variantOf(request) {
    const raw = typeof request.rawQueryString === 'function' ? request.rawQueryString() : '';
    if (!raw || raw.split('&').length > MAX_QUERY_FIELDS) {
        return '';
    }
    const chosen = [];
    const fields = raw.split('&');
    for (let i = 0; i < fields.length; i++) {
        if (!fields[i]) {
            continue;
        }
        const at = fields[i].indexOf('=');
        const name = unquote((at < 0 ? fields[i] : fields[i].slice(0, at)).replace(/\+/g, ' '));
        const value = unquote((at < 0 ? '' : fields[i].slice(at + 1)).replace(/\+/g, ' '));
        if (VARIANT_KEYS.indexOf(name) >= 0) {
            chosen.push('?' + name + '=' + value);
        }
    }
    return chosen.length > 1 ? null : chosen.join('');
}

function published(record, key) {
    if (ALWAYS.indexOf(key) >= 0 || (record.k || []).indexOf(key) >= 0) {
        return true;
    }
    const id = key.slice(INCIDENTS.length);
    return key.indexOf(INCIDENTS) === 0 && id.indexOf('/') < 0 && (record.i || []).indexOf(id) >= 0;
}

// site.File.name: 'index' for the page itself, '.html' for a name without a dot, and a
// variant as '@name=value' before it.
function fileName(key) {
    const mark = key.indexOf('?');
    const path = mark < 0 ? key : key.slice(0, mark);
    const variant = mark < 0 ? '' : key.slice(mark + 1);
    let stem = path || 'index';
    if (stem.slice(stem.lastIndexOf('/') + 1).indexOf('.') < 0) {
        stem += variant ? '@' + variant + '.html' : '.html';
    } else if (variant) {
        stem += '@' + variant;
    }
    return stem;
}
