"""The published site's CDN, for `infra/generate.py`: one CloudFront distribution in front of
the site bucket and of the API, reading the bucket through Origin Access Control.

- The bucket (origin `site`) is the default: a reader's view of a page is a CloudFront hit or
  an S3 GET, never a Lambda invocation. The viewer-request function
  (`cloudfront/viewer-request.js`) finds the page of a host or of `/s/{ref}` in the
  KeyValueStore the publisher keeps (`chalicelib/sitestore/hosts.py`) and rewrites the path to
  its object; a path the store does not name as published goes to the app (origin `app`,
  `cf.selectRequestOriginById`), with the reader's host in `x-forwarded-host`. The
  viewer-response function turns the objects' metadata back into their headers and status.
- The API Gateway stage answers `/v1/*`, `/v0/*`, `/manage*` and the reader pages that are
  never files (sign-in and out, the subscription links), uncached, through their own cache
  behaviours. It is two origins of one stage: `app` sends the origin's secret
  (`X-Origin-Verify`, from Secrets Manager) and gets `CloudFront-Viewer-Address` on every
  behaviour that can reach it, so the app may count a reader by its own address; `api` (the
  API and its keys) gets every viewer header but `Host`, the `Authorization` header included,
  which no origin request policy of our own may name, and so neither the secret nor an
  address CloudFront vouches for.
- Caching follows each answer's own `Cache-Control` (the cache policies' default TTL is 0):
  published files carry `max-age=10` with `stale-while-revalidate` and `stale-if-error`,
  audience-specific pages `private` (never kept), errors `no-store`; CloudFront's own error
  answers are kept `ERROR_CACHING_SECONDS`.

Why not an origin group of the bucket and the API (S3 first, the API on a 404): CloudFront
sends the secondary the same request, so the API would get the object's key
(`/hosts/{host}/history@quarter=...html`), which no route of the app answers. The function
decides instead, from what the store says the bucket holds; see docs/aws-site.md. With two
regions there is an origin group, of the two regions' buckets, which hold the same keys
(`infra/regions.py`).
"""

from pathlib import Path

from infra import regions

FUNCTIONS_DIR = Path(__file__).resolve().parent / "cloudfront"
SITE_ORIGIN = "site"
APP_ORIGIN = "app"  # viewer-request.js selects it by this id
API_ORIGIN = "api"

DISTRIBUTION = "SiteDistribution"
ORIGIN_ACCESS_CONTROL = "SiteOriginAccessControl"
BUCKET_POLICY = "SiteBucketPolicy"
HOSTS_STORE = "SiteHostsStore"
HOSTS_STORE_VARIABLE = "SITE_HOSTS_STORE"
VIEWER_REQUEST = "SiteViewerRequest"
VIEWER_RESPONSE = "SiteViewerResponse"
PAGES_CACHE_POLICY = "SitePagesCachePolicy"
PAGES_ORIGIN_REQUESTS = "SitePagesOriginRequestPolicy"
APP_ORIGIN_REQUESTS = "SiteAppOriginRequestPolicy"
# Where the viewer-request function's code names its store.
HOSTS_STORE_ID_MARK = "__HOSTS_STORE_ID__"

# AWS's managed policies: no caching; every viewer header but Host (API Gateway answers only
# to its own), every cookie and query string to the origin.
CACHING_DISABLED = "4135ea2d-6df8-44a3-9df3-4b5a84be39ad"
ALL_VIEWER_EXCEPT_HOST_HEADER = "b689b0a8-53d0-40ab-baf2-68738e2966ac"
# A function answer, an API Gateway error, an S3 error: kept this long, then asked again.
ERROR_CACHING_SECONDS = 5
ERROR_CODES = [400, 403, 404, 405, 414, 416, 500, 501, 502, 503, 504]
# The reader's host as the cache key and the app know it (API Gateway gets its own in Host).
FORWARDED_HOST = "x-forwarded-host"
# What the app reads of a request routed to it through the default behaviour: the form's
# type, and whether a subscribe POST wants JSON (cookies and the query go too).
APP_HEADERS = ["accept", "content-type"]
# The origin's secret, sent to origin `app` only (chalicelib/http/ratelimit.py checks it);
# CloudFront replaces a header of that name a reader sends.
ORIGIN_VERIFY_HEADER = "X-Origin-Verify"
# The reader's address and port, which CloudFront adds when an origin request policy names it
# (AWS's AllViewerExceptHostHeader forwards the viewer's own headers only, none of these).
VIEWER_ADDRESS = "CloudFront-Viewer-Address"

# Paths only the app answers, each a cache behaviour to the API, uncached: to `api` what takes
# an API key, to `app` what is the console's or a reader's; with the viewer-request function
# where the app needs the reader's host (pages at a host's root).
APP_PATHS = [
    ("/v1/*", API_ORIGIN, False),
    ("/v0/*", API_ORIGIN, False),
    ("/manage*", APP_ORIGIN, False),
    ("/sms_countries.json", API_ORIGIN, False),
    ("/s/*/sign-in*", APP_ORIGIN, True),
    ("/s/*/sign-out*", APP_ORIGIN, True),
    ("/s/*/subscriptions/*", APP_ORIGIN, True),
    ("/sign-in*", APP_ORIGIN, True),
    ("/sign-out*", APP_ORIGIN, True),
]
ALL_METHODS = ["GET", "HEAD", "OPTIONS", "PUT", "PATCH", "POST", "DELETE"]

# What the functions do with the site, by role (`infra/generate.py` grants them).
SITE_OBJECT_ACTIONS = ["s3:GetObject", "s3:PutObject", "s3:DeleteObject"]
SITE_LISTING_ACTIONS = ["s3:ListBucket"]
# The prefixes the publisher writes (`chalicelib/public/publish.py`): the mounts under `/s/`
# and at a host's root, and the version markers.
PUBLISHED_PREFIXES = ["s/*", "hosts/*", "published/*"]
# What CloudFront reads: the mounts, never the markers.
SERVED_PREFIXES = ["s/*", "hosts/*"]
HOSTS_STORE_ACTIONS = [
    "cloudfront-keyvaluestore:DescribeKeyValueStore",  # the ETag an update is conditional on
    "cloudfront-keyvaluestore:GetKey",  # whose a host is before taking it out
    "cloudfront-keyvaluestore:UpdateKeys",
]
# The API's withdrawal of a page made private: its record only, no read.
WITHDRAWAL_ACTIONS = [
    "cloudfront-keyvaluestore:DescribeKeyValueStore",
    "cloudfront-keyvaluestore:UpdateKeys",
]

PARAMETERS = {
    "PublicCertificateArn": {
        "Type": "String",
        "Default": "",
        "AllowedPattern": "^(arn:aws[a-z-]*:acm:us-east-1:[0-9]{12}:certificate/[0-9a-f-]+)?$",
        "Description": "ACM certificate in us-east-1 for the distribution's names: the "
        "wildcard *.<PublicDomain>, and any name of PublicAliases (as subject alternative "
        "names). Empty: the distribution answers at its cloudfront.net name only.",
    },
    "PublicAliases": {
        "Type": "CommaDelimitedList",
        "Default": "",
        "Description": "More names the distribution answers (with PublicCertificateArn): the "
        "host of PublicBaseUrl, pages' custom domains. *.<PublicDomain> is added by itself.",
    },
}

CONDITIONS = {
    "HasPublicCertificate": {"Fn::Not": [{"Fn::Equals": [{"Ref": "PublicCertificateArn"}, ""]}]},
    "HasPublicDomain": {"Fn::Not": [{"Fn::Equals": [{"Ref": "PublicDomain"}, ""]}]},
    "HasPublicAliases": {
        "Fn::Not": [{"Fn::Equals": [{"Fn::Join": ["", {"Ref": "PublicAliases"}]}, ""]}]
    },
    "AliasesWildcardAndMore": {
        "Fn::And": [
            {"Condition": "HasPublicCertificate"},
            {"Condition": "HasPublicDomain"},
            {"Condition": "HasPublicAliases"},
        ]
    },
    "AliasesWildcardOnly": {
        "Fn::And": [
            {"Condition": "HasPublicCertificate"},
            {"Condition": "HasPublicDomain"},
            {"Fn::Not": [{"Condition": "HasPublicAliases"}]},
        ]
    },
    "AliasesMoreOnly": {
        "Fn::And": [
            {"Condition": "HasPublicCertificate"},
            {"Fn::Not": [{"Condition": "HasPublicDomain"}]},
            {"Condition": "HasPublicAliases"},
        ]
    },
}


def _aliases() -> dict:
    wildcard = {"Fn::Sub": "*.${PublicDomain}"}
    more = {"Fn::Join": [",", {"Ref": "PublicAliases"}]}
    return {
        "Fn::If": [
            "AliasesWildcardAndMore",
            {"Fn::Split": [",", {"Fn::Join": [",", [wildcard, more]]}]},
            {
                "Fn::If": [
                    "AliasesWildcardOnly",
                    [wildcard],
                    {
                        "Fn::If": [
                            "AliasesMoreOnly",
                            {"Ref": "PublicAliases"},
                            {"Ref": "AWS::NoValue"},
                        ]
                    },
                ]
            },
        ]
    }


def _viewer_certificate() -> dict:
    return {
        "Fn::If": [
            "HasPublicCertificate",
            {
                "AcmCertificateArn": {"Ref": "PublicCertificateArn"},
                "SslSupportMethod": "sni-only",
                "MinimumProtocolVersion": "TLSv1.2_2021",
            },
            {"CloudFrontDefaultCertificate": True},
        ]
    }


def function_code(name: str) -> str:
    return (FUNCTIONS_DIR / name).read_text()


def _viewer_request_code() -> dict:
    """The function's code, naming its store: the store's id is known once it exists."""
    before, after = function_code("viewer-request.js").split(HOSTS_STORE_ID_MARK)
    return {"Fn::Join": ["", [before, {"Fn::GetAtt": [HOSTS_STORE, "Id"]}, after]]}


def _function(name: str, comment: str, code, store: bool) -> dict:
    config: dict = {"Comment": comment, "Runtime": "cloudfront-js-2.0"}
    if store:
        config["KeyValueStoreAssociations"] = [
            {"KeyValueStoreARN": {"Fn::GetAtt": [HOSTS_STORE, "Arn"]}}
        ]
    return {
        "Type": "AWS::CloudFront::Function",
        "Properties": {
            "Name": name,
            "AutoPublish": True,
            "FunctionCode": code,
            "FunctionConfig": config,
        },
    }


def _app_behaviour(pattern: str, origin: str, with_function: bool) -> dict:
    behaviour = {
        "PathPattern": pattern,
        "TargetOriginId": origin,
        "ViewerProtocolPolicy": "redirect-to-https",
        "AllowedMethods": ALL_METHODS,
        "CachedMethods": ["GET", "HEAD"],
        "Compress": True,
        "CachePolicyId": CACHING_DISABLED,
        "OriginRequestPolicyId": (
            {"Ref": APP_ORIGIN_REQUESTS} if origin == APP_ORIGIN else ALL_VIEWER_EXCEPT_HOST_HEADER
        ),
    }
    if with_function:
        behaviour["FunctionAssociations"] = [_association("viewer-request", VIEWER_REQUEST)]
    return behaviour


def _pages_behaviour() -> dict:
    """What reaches a page's path: its files, and (the function decides) the app. Other
    methods than GET and HEAD reach the function, which hands them to the app (the subscribe
    form's POST shares its path with the published form)."""
    return {
        "ViewerProtocolPolicy": "redirect-to-https",
        "CachedMethods": ["GET", "HEAD"],
        "Compress": True,
        "CachePolicyId": {"Ref": PAGES_CACHE_POLICY},
        "OriginRequestPolicyId": {"Ref": PAGES_ORIGIN_REQUESTS},
        "FunctionAssociations": [
            _association("viewer-request", VIEWER_REQUEST),
            _association("viewer-response", VIEWER_RESPONSE),
        ],
    }


def _association(event: str, function: str) -> dict:
    return {"EventType": event, "FunctionARN": {"Fn::GetAtt": [function, "FunctionARN"]}}


def resources(
    prefix: str, bucket: str, rest_api: str, api_stage: str, origin_secret: str
) -> dict[str, dict]:
    """The distribution and what it needs; `prefix` names them (`statuspage-prod`), `bucket`,
    `rest_api` and `origin_secret` are the logical ids of the site bucket, of Chalice's REST
    API and of the secret origin `app` sends. The distribution exists once (the primary's
    stack makes it); each region's bucket has its policy, letting that distribution read it."""
    made = _resources(prefix, bucket, rest_api, api_stage, origin_secret)
    return {BUCKET_POLICY: made.pop(BUCKET_POLICY), **regions.only_in_primary(made)}


def _resources(
    prefix: str, bucket: str, rest_api: str, api_stage: str, origin_secret: str
) -> dict[str, dict]:
    only_this_distribution = {
        "StringEquals": {"AWS:SourceArn": regions.distribution_arn(DISTRIBUTION)}
    }
    cloudfront = {"Service": "cloudfront.amazonaws.com"}
    # With two regions, Route 53's failover name (`regions.app_failover_resources`): an
    # origin group would fail over GET and HEAD only, and writes must move too.
    api_gateway = {
        "DomainName": regions.app_origin_domain(rest_api),
        "OriginPath": regions.app_origin_path(api_stage),
        "CustomOriginConfig": {
            "OriginProtocolPolicy": "https-only",
            "HTTPSPort": 443,
            "OriginSSLProtocols": ["TLSv1.2"],
        },
    }
    # A dynamic reference: CloudFormation reads the secret when it deploys the distribution,
    # so the template never holds its value.
    origin_secret_value = {
        "Fn::Sub": "{{resolve:secretsmanager:${" + origin_secret + "}:SecretString}}"
    }
    return {
        HOSTS_STORE: {
            "Type": "AWS::CloudFront::KeyValueStore",
            "Properties": {
                "Name": f"{prefix}-site-hosts",
                "Comment": "Each host and /s/{ref} -> its page id; p/{page id} -> the paths "
                "published (chalicelib/sitestore/hosts.py)",
            },
        },
        VIEWER_REQUEST: _function(
            f"{prefix}-site-request",
            "Host and path -> the page's object in the bucket, or the app",
            _viewer_request_code(),
            store=True,
        ),
        VIEWER_RESPONSE: _function(
            f"{prefix}-site-response",
            "An object's metadata -> its headers and status",
            function_code("viewer-response.js"),
            store=False,
        ),
        ORIGIN_ACCESS_CONTROL: {
            "Type": "AWS::CloudFront::OriginAccessControl",
            "Properties": {
                "OriginAccessControlConfig": {
                    "Name": f"{prefix}-site",
                    "Description": "CloudFront reads the site bucket, signing every request",
                    "OriginAccessControlOriginType": "s3",
                    "SigningBehavior": "always",
                    "SigningProtocol": "sigv4",
                }
            },
        },
        BUCKET_POLICY: {
            "Type": "AWS::S3::BucketPolicy",
            "Properties": {
                "Bucket": {"Ref": bucket},
                "PolicyDocument": {
                    "Version": "2012-10-17",
                    "Statement": [
                        {
                            "Sid": "CloudFrontReadsThePages",
                            "Effect": "Allow",
                            "Principal": cloudfront,
                            "Action": "s3:GetObject",
                            "Resource": [
                                {"Fn::Sub": f"${{{bucket}.Arn}}/{served}"}
                                for served in SERVED_PREFIXES
                            ],
                            "Condition": only_this_distribution,
                        },
                        {
                            # A missing object is then a 404, not a 403.
                            "Sid": "CloudFrontTellsMissingFromForbidden",
                            "Effect": "Allow",
                            "Principal": cloudfront,
                            "Action": "s3:ListBucket",
                            "Resource": {"Fn::GetAtt": [bucket, "Arn"]},
                            "Condition": only_this_distribution,
                        },
                        {
                            "Sid": "TlsOnly",
                            "Effect": "Deny",
                            "Principal": "*",
                            "Action": "s3:*",
                            "Resource": [
                                {"Fn::GetAtt": [bucket, "Arn"]},
                                {"Fn::Sub": f"${{{bucket}.Arn}}/*"},
                            ],
                            "Condition": {"Bool": {"aws:SecureTransport": "false"}},
                        },
                    ],
                },
            },
        },
        PAGES_CACHE_POLICY: {
            "Type": "AWS::CloudFront::CachePolicy",
            "Properties": {
                "CachePolicyConfig": {
                    "Name": f"{prefix}-site-pages",
                    "Comment": "Each answer's own Cache-Control; a page by its host and path",
                    "MinTTL": 0,
                    "DefaultTTL": 0,
                    "MaxTTL": 31536000,
                    "ParametersInCacheKeyAndForwardedToOrigin": {
                        "EnableAcceptEncodingGzip": True,
                        "EnableAcceptEncodingBrotli": True,
                        "HeadersConfig": {
                            "HeaderBehavior": "whitelist",
                            "Headers": [FORWARDED_HOST],
                        },
                        "CookiesConfig": {"CookieBehavior": "none"},
                        # A published file's request has none left (the function keeps the
                        # variant in the path); the app's answers may depend on any.
                        "QueryStringsConfig": {"QueryStringBehavior": "all"},
                    },
                }
            },
        },
        PAGES_ORIGIN_REQUESTS: {
            "Type": "AWS::CloudFront::OriginRequestPolicy",
            "Properties": {
                "OriginRequestPolicyConfig": {
                    "Name": f"{prefix}-site-pages",
                    "Comment": "What the app reads of a page's request: reader cookies, the "
                    "form, the reader's address",
                    "CookiesConfig": {"CookieBehavior": "all"},
                    "HeadersConfig": {
                        "HeaderBehavior": "whitelist",
                        "Headers": [*APP_HEADERS, VIEWER_ADDRESS],
                    },
                    "QueryStringsConfig": {"QueryStringBehavior": "all"},
                }
            },
        },
        APP_ORIGIN_REQUESTS: {
            "Type": "AWS::CloudFront::OriginRequestPolicy",
            "Properties": {
                "OriginRequestPolicyConfig": {
                    "Name": f"{prefix}-site-app",
                    "Comment": "What the app reads of the console's and the reader pages' "
                    "requests, and the reader's address",
                    "CookiesConfig": {"CookieBehavior": "all"},
                    "HeadersConfig": {
                        "HeaderBehavior": "whitelist",
                        "Headers": [*APP_HEADERS, FORWARDED_HOST, VIEWER_ADDRESS],
                    },
                    "QueryStringsConfig": {"QueryStringBehavior": "all"},
                }
            },
        },
        DISTRIBUTION: {
            "Type": "AWS::CloudFront::Distribution",
            "Properties": {
                "DistributionConfig": {
                    "Enabled": True,
                    "Comment": f"{prefix}: the published status pages, and the app",
                    "HttpVersion": "http2and3",
                    "IPV6Enabled": True,
                    "PriceClass": "PriceClass_All",
                    "Aliases": _aliases(),
                    "ViewerCertificate": _viewer_certificate(),
                    "Origins": [
                        {
                            "Id": SITE_ORIGIN,
                            "DomainName": {"Fn::GetAtt": [bucket, "RegionalDomainName"]},
                            "S3OriginConfig": {"OriginAccessIdentity": ""},
                            "OriginAccessControlId": {"Fn::GetAtt": [ORIGIN_ACCESS_CONTROL, "Id"]},
                        },
                        regions.peer_site_origin({"Fn::GetAtt": [ORIGIN_ACCESS_CONTROL, "Id"]}),
                        {
                            "Id": APP_ORIGIN,
                            **api_gateway,
                            "OriginCustomHeaders": [
                                {
                                    "HeaderName": ORIGIN_VERIFY_HEADER,
                                    "HeaderValue": origin_secret_value,
                                }
                            ],
                        },
                        {"Id": API_ORIGIN, **api_gateway},
                    ],
                    "OriginGroups": regions.site_origin_groups(SITE_ORIGIN),
                    # With two regions the two buckets, one failing over to the other (GET and
                    # HEAD only: CloudFront refuses an origin group on a behaviour that allows
                    # writes), and the pages' own writes through behaviours of their own.
                    "DefaultCacheBehavior": {
                        **_pages_behaviour(),
                        "TargetOriginId": regions.site_target(SITE_ORIGIN),
                        "AllowedMethods": regions.site_methods(ALL_METHODS),
                    },
                    "CacheBehaviors": [
                        *(_app_behaviour(*path) for path in APP_PATHS),
                        *(
                            regions.page_write_behaviour(
                                {
                                    **_pages_behaviour(),
                                    "PathPattern": pattern,
                                    "TargetOriginId": SITE_ORIGIN,
                                    "AllowedMethods": ALL_METHODS,
                                }
                            )
                            for pattern in regions.PAGE_WRITE_PATHS
                        ),
                    ],
                    "CustomErrorResponses": [
                        {"ErrorCode": code, "ErrorCachingMinTTL": ERROR_CACHING_SECONDS}
                        for code in ERROR_CODES
                    ],
                }
            },
        },
    }


def hosts_store_arn() -> dict:
    """The routing store the publisher keeps: the primary's own, which the secondary's
    stack is given (`SiteHostsStoreId`): a KeyValueStore is global, like the distribution."""
    return regions.primary_or(
        {"Fn::GetAtt": [HOSTS_STORE, "Arn"]},
        {
            "Fn::Sub": "arn:${AWS::Partition}:cloudfront::${AWS::AccountId}:key-value-store/"
            f"${{{regions.HOSTS_STORE_ID}}}"
        },
    )


def outputs() -> dict[str, dict]:
    return {
        "SiteDomainName": {
            "Condition": regions.IS_PRIMARY,
            "Description": "Where readers go: point the public names (CNAME or Route 53 alias) "
            "here",
            "Value": {"Fn::GetAtt": [DISTRIBUTION, "DomainName"]},
        },
        "SiteDistributionId": {
            "Condition": regions.IS_PRIMARY,
            "Description": "The distribution (for an invalidation by hand)",
            "Value": {"Ref": DISTRIBUTION},
        },
        "SiteHostsStoreId": {
            "Condition": regions.IS_PRIMARY,
            "Description": "The secondary stack's SiteHostsStoreId",
            "Value": {"Fn::GetAtt": [HOSTS_STORE, "Id"]},
        },
        "SiteHostsStoreArn": {
            "Condition": regions.IS_PRIMARY,
            "Description": "The store of hosts and published paths the publisher keeps",
            "Value": {"Fn::GetAtt": [HOSTS_STORE, "Arn"]},
        },
    }


def publisher_statements(bucket: str) -> list[dict]:
    """The publish function's: the prefixes it writes, the listing, the routing."""
    return [
        {
            "Sid": "SiteFiles",
            "Effect": "Allow",
            "Action": SITE_OBJECT_ACTIONS,
            "Resource": [
                {"Fn::Sub": f"${{{bucket}.Arn}}/{prefix}"} for prefix in PUBLISHED_PREFIXES
            ],
        },
        {
            # ListObjectsV2, for deleting a page's files; it also makes a missing key
            # NoSuchKey, not AccessDenied, to GetObject and HeadObject.
            "Sid": "SiteListing",
            "Effect": "Allow",
            "Action": SITE_LISTING_ACTIONS,
            "Resource": {"Fn::GetAtt": [bucket, "Arn"]},
        },
        {
            "Sid": "SiteRouting",
            "Effect": "Allow",
            "Action": HOSTS_STORE_ACTIONS,
            "Resource": hosts_store_arn(),
        },
        {
            # A deleted page's uploaded images go with its files (`publish.remove`).
            "Sid": "BrandingRemoval",
            "Effect": "Allow",
            "Action": ["s3:DeleteObject"],
            "Resource": {"Fn::Sub": f"${{{bucket}.Arn}}/{BRANDING_PREFIX}"},
        },
    ]


# The images the console uploads (`chalicelib/sitestore/branding.py`): the API writes them and
# answers their reads, under their own prefix, which no publish replaces; the publish function
# removes a deleted page's.
BRANDING_PREFIX = "branding/*"
BRANDING_OBJECT_ACTIONS = ["s3:GetObject", "s3:PutObject"]


def branding_statements(bucket: str) -> list[dict]:
    """The API's: the pages' uploaded images, and nothing else of the bucket."""
    return [
        {
            "Sid": "BrandingFiles",
            "Effect": "Allow",
            "Action": BRANDING_OBJECT_ACTIONS,
            "Resource": {"Fn::Sub": f"${{{bucket}.Arn}}/{BRANDING_PREFIX}"},
        },
        {
            # A missing image is NoSuchKey (a 404), not AccessDenied, with the listing allowed.
            "Sid": "BrandingListing",
            "Effect": "Allow",
            "Action": SITE_LISTING_ACTIONS,
            "Resource": {"Fn::GetAtt": [bucket, "Arn"]},
            "Condition": {"StringLike": {"s3:prefix": [BRANDING_PREFIX]}},
        },
    ]


def withdrawal_statements() -> list[dict]:
    """The API's: a page made private leaves the CDN's routing before the answer."""
    return [
        {
            "Sid": "SiteRoutingWithdrawal",
            "Effect": "Allow",
            "Action": WITHDRAWAL_ACTIONS,
            "Resource": hosts_store_arn(),
        }
    ]
