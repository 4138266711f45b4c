// The published site's answers on CloudFront (viewer response; runtime cloudfront-js-2.0).
// The bucket keeps each file's own headers (the policy with the page's style hashes, CORS,
// framing, Location) and a status other than 200 as user metadata (x-amz-meta-*, see
// chalicelib/sitestore/bucket.py): they become the answer's headers and status again, and
// the bucket's own headers go. The CDN-only directives of Cache-Control
// (stale-while-revalidate, stale-if-error) are not for browsers: a reader's reload must not
// show a copy older than max-age.

const META = 'x-amz-meta-';
const HASH = 'content-sha256';
const STATUS = 'status';
const BUCKET_HEADERS = [
    'x-amz-id-2', 'x-amz-request-id', 'x-amz-version-id', 'x-amz-server-side-encryption',
    'x-amz-expiration', 'x-amz-replication-status', 'x-amz-restore',
];
const REASONS = { 301: 'Moved Permanently', 302: 'Found', 304: 'Not Modified',
    400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found',
    410: 'Gone', 500: 'Internal Server Error', 503: 'Service Unavailable' };

function handler(event) {
    const response = event.response;
    const headers = response.headers;
    let status = 0;
    for (const name in headers) {
        if (name.indexOf(META) === 0) {
            const own = name.slice(META.length);
            if (own === STATUS) {
                status = parseInt(headers[name].value, 10) || 0;
            } else if (own !== HASH) {
                headers[own] = headers[name];
            }
            delete headers[name];
        } else if (BUCKET_HEADERS.indexOf(name) >= 0) {
            delete headers[name];
        }
    }
    if (status >= 200 && status <= 599 && response.statusCode === 200) {
        response.statusCode = status;
        response.statusDescription = REASONS[status] || '';
    }
    const cacheControl = headers['cache-control'];
    if (cacheControl) {
        const kept = cacheControl.value.split(',').filter(function (directive) {
            return !/^\s*stale-(while-revalidate|if-error)\s*=/i.test(directive);
        });
        cacheControl.value = kept.map(function (directive) {
            return directive.trim();
        }).join(', ');
    }
    return response;
}
