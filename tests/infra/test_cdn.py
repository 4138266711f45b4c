"""The published site's CDN in the template: a private bucket read only through Origin Access
Control, one distribution whose behaviours send every dynamic path to the app, caching that
follows each answer's own Cache-Control, and the functions and store that route by host."""

import fnmatch
import json
import re

import pytest

from infra import cdn, generate

from .conditions import chosen, condition_values

STAGE = "prod"
# What takes an API key (the `Authorization` header, which only "every viewer header" forwards).
API_PREFIXES = ("/v1/", "/v0/", "/sms_countries.json")
CONSOLE_PREFIX = "/manage"
# Reader pages the files never hold: the app answers them, and needs the reader's host.
READER_PAGES = ("sign-in", "sign-out", "subscriptions")


@pytest.fixture(scope="module")
def resources() -> dict:
    return json.loads(generate.RESOURCES_FILE.read_text())["Resources"]


@pytest.fixture(scope="module")
def distribution(resources) -> dict:
    """Its behaviours as one region has them (a second region's: tests/infra/test_regions.py)."""
    config = resources[cdn.DISTRIBUTION]["Properties"]["DistributionConfig"]
    one_region = condition_values(json.loads(generate.RESOURCES_FILE.read_text()), {})
    return {
        **config,
        "DefaultCacheBehavior": chosen(config["DefaultCacheBehavior"], one_region),
        "CacheBehaviors": chosen(config["CacheBehaviors"], one_region),
    }


def of_type(resources: dict, kind: str) -> dict:
    return {key: value for key, value in resources.items() if value.get("Type") == kind}


def origins_of(distribution: dict) -> dict[str, dict]:
    """The distribution's origins by id, but the other region's bucket (there only with a
    `PeerSiteBucket`: tests/infra/test_regions.py)."""
    return {origin["Id"]: origin for origin in distribution["Origins"] if "Id" in origin}


def as_list(value) -> list:
    return value if isinstance(value, list) else [value]


def test_the_template_has_the_bucket_the_access_control_the_distribution_functions_and_store(
    resources,
):
    kinds = {
        generate.SITE_BUCKET: "AWS::S3::Bucket",
        cdn.BUCKET_POLICY: "AWS::S3::BucketPolicy",
        cdn.ORIGIN_ACCESS_CONTROL: "AWS::CloudFront::OriginAccessControl",
        cdn.DISTRIBUTION: "AWS::CloudFront::Distribution",
        cdn.VIEWER_REQUEST: "AWS::CloudFront::Function",
        cdn.VIEWER_RESPONSE: "AWS::CloudFront::Function",
        cdn.HOSTS_STORE: "AWS::CloudFront::KeyValueStore",
    }
    assert {key: resources[key]["Type"] for key in kinds} == kinds


def test_no_statement_of_the_bucket_policy_lets_anyone_but_the_distribution_read(resources):
    policy = resources[cdn.BUCKET_POLICY]["Properties"]
    assert policy["Bucket"] == {"Ref": generate.SITE_BUCKET}
    allowed = [s for s in policy["PolicyDocument"]["Statement"] if s["Effect"] == "Allow"]
    # The primary's own distribution, or (in the secondary region) the one it is given.
    distribution_arn = {
        "Fn::Sub": [
            "arn:${AWS::Partition}:cloudfront::${AWS::AccountId}:distribution/${Id}",
            {
                "Id": {
                    "Fn::If": [
                        "IsPrimary",
                        {"Ref": "SiteDistribution"},
                        {"Ref": "SiteDistributionId"},
                    ]
                }
            },
        ]
    }
    assert allowed
    for statement in allowed:
        assert statement["Principal"] == {"Service": "cloudfront.amazonaws.com"}, statement
        assert statement["Condition"] == {"StringEquals": {"AWS:SourceArn": distribution_arn}}
        assert set(as_list(statement["Action"])) <= {"s3:GetObject", "s3:ListBucket"}
    reads = [s for s in allowed if "s3:GetObject" in as_list(s["Action"])]
    # The pages' prefixes only: not the version markers, not anything else put there.
    assert [r for s in reads for r in as_list(s["Resource"])] == [
        {"Fn::Sub": "${SiteBucket.Arn}/s/*"},
        {"Fn::Sub": "${SiteBucket.Arn}/hosts/*"},
    ]
    # Block Public Access would refuse a public policy anyway.
    block = resources[generate.SITE_BUCKET]["Properties"]["PublicAccessBlockConfiguration"]
    assert all(block.values())


def test_the_bucket_is_read_through_origin_access_control_only(resources, distribution):
    assert not of_type(resources, "AWS::CloudFront::CloudFrontOriginAccessIdentity")
    control = resources[cdn.ORIGIN_ACCESS_CONTROL]["Properties"]["OriginAccessControlConfig"]
    assert control["OriginAccessControlOriginType"] == "s3"
    assert control["SigningBehavior"] == "always" and control["SigningProtocol"] == "sigv4"
    origins = origins_of(distribution)
    site = origins[cdn.SITE_ORIGIN]
    assert site["DomainName"] == {"Fn::GetAtt": [generate.SITE_BUCKET, "RegionalDomainName"]}
    assert site["OriginAccessControlId"] == {"Fn::GetAtt": [cdn.ORIGIN_ACCESS_CONTROL, "Id"]}
    assert site["S3OriginConfig"] == {"OriginAccessIdentity": ""}
    assert "WebsiteConfiguration" not in resources[generate.SITE_BUCKET]["Properties"]
    app = origins[cdn.APP_ORIGIN]
    assert app["OriginPath"] == {"Fn::If": ["HasAppFailover", "", "/api"]}
    assert app["CustomOriginConfig"]["OriginProtocolPolicy"] == "https-only"


def behaviour_of(distribution: dict, path: str) -> dict:
    """The behaviour CloudFront picks for `path`: the first pattern that matches, else the
    default (`*` matches any characters, `/` too, as fnmatch's does)."""
    for behaviour in distribution["CacheBehaviors"]:
        if fnmatch.fnmatchcase(path, behaviour["PathPattern"]):
            return behaviour
    return distribution["DefaultCacheBehavior"]


def sample(route: str) -> str:
    return re.sub(r"{\w+}", "x1", route)


def app_routes():
    from app import app

    return [(path, method) for path, methods in app.routes.items() for method in methods]


def test_every_dynamic_path_of_the_app_reaches_the_app_and_the_pages_the_bucket(distribution):
    request_function = {"Fn::GetAtt": [cdn.VIEWER_REQUEST, "FunctionARN"]}
    checked = 0
    for route, method in app_routes():
        behaviour = behaviour_of(distribution, sample(route))
        assert method in behaviour["AllowedMethods"], (route, method)
        functions = [a["FunctionARN"] for a in behaviour.get("FunctionAssociations", [])]
        if route.startswith(API_PREFIXES):
            # The API: to the stage, never cached, every header of the caller's but Host.
            assert behaviour["TargetOriginId"] == cdn.API_ORIGIN, route
            assert behaviour["CachePolicyId"] == cdn.CACHING_DISABLED, route
            assert behaviour["OriginRequestPolicyId"] == cdn.ALL_VIEWER_EXCEPT_HOST_HEADER
        elif route.startswith(CONSOLE_PREFIX):
            # The console: to the stage as origin `app`, never cached, what it reads.
            assert behaviour["TargetOriginId"] == cdn.APP_ORIGIN, route
            assert behaviour["CachePolicyId"] == cdn.CACHING_DISABLED, route
            assert behaviour["OriginRequestPolicyId"] == {"Ref": cdn.APP_ORIGIN_REQUESTS}
        elif any(f"/{page}" in route for page in READER_PAGES):
            # Sign-in and subscription links: to the app, uncached, with the reader's host
            # (the viewer-request function sets it: API Gateway sees its own Host).
            assert behaviour["TargetOriginId"] == cdn.APP_ORIGIN, route
            assert behaviour["CachePolicyId"] == cdn.CACHING_DISABLED, route
            assert behaviour["OriginRequestPolicyId"] == {"Ref": cdn.APP_ORIGIN_REQUESTS}
            assert functions == [request_function], route
        else:
            # A public page's path: the bucket by default; the viewer-request function sends
            # what the files do not hold (another method, an older period) to the app
            # (infra/cloudfront/functions.test.js).
            assert behaviour is distribution["DefaultCacheBehavior"], route
            assert behaviour["TargetOriginId"] == cdn.SITE_ORIGIN
            assert request_function in functions
        checked += 1
    assert checked > 100


def test_only_origin_app_sends_the_origins_secret_which_the_template_generates(
    resources, distribution
):
    from chalicelib.http import ratelimit

    origins = origins_of(distribution)
    app, api = origins.pop(cdn.APP_ORIGIN), origins.pop(cdn.API_ORIGIN)
    # A dynamic reference: CloudFormation resolves it, the template never holds the value.
    assert app["OriginCustomHeaders"] == [
        {
            "HeaderName": "X-Origin-Verify",
            "HeaderValue": {
                "Fn::Sub": "{{resolve:secretsmanager:${OriginVerifySecret}:SecretString}}"
            },
        }
    ]
    assert cdn.ORIGIN_VERIFY_HEADER.lower() == ratelimit.ORIGIN_VERIFY_HEADER
    # The same stage either way; the API's origin and the bucket's send no secret.
    assert "OriginCustomHeaders" not in api
    assert {key: api[key] for key in api if key != "Id"} == {
        key: app[key] for key in app if key not in ("Id", "OriginCustomHeaders")
    }
    assert all("OriginCustomHeaders" not in origin for origin in origins.values())
    secret = resources[generate.ORIGIN_VERIFY_SECRET]
    assert secret["Type"] == "AWS::SecretsManager::Secret"
    assert "SecretString" not in secret["Properties"]
    generated = secret["Properties"]["GenerateSecretString"]
    assert generated["PasswordLength"] >= 48 and generated["ExcludePunctuation"] is True


def origin_request_headers(resources: dict, policy) -> list[str] | None:
    """The headers a behaviour's origin request policy of this template names (None for
    AWS's managed policies, which name none of CloudFront's own headers)."""
    if not isinstance(policy, dict):
        return None
    config = resources[policy["Ref"]]["Properties"]["OriginRequestPolicyConfig"]
    assert config["HeadersConfig"]["HeaderBehavior"] == "whitelist"
    return [header.lower() for header in config["HeadersConfig"]["Headers"]]


def test_cloudfront_writes_the_readers_address_on_every_behaviour_that_can_reach_app(
    resources, distribution
):
    """The app believes `CloudFront-Viewer-Address` from a request that carries origin
    `app`'s secret: every such request must have passed a behaviour whose policy makes
    CloudFront write the header (a managed policy that forwards the viewer's own headers
    would let a reader send one)."""
    from chalicelib.http import ratelimit

    assert cdn.VIEWER_ADDRESS.lower() == ratelimit.VIEWER_ADDRESS_HEADER
    request_function = {"Fn::GetAtt": [cdn.VIEWER_REQUEST, "FunctionARN"]}
    # The function hands a request to `app` and to no other origin.
    source = cdn.function_code("viewer-request.js")
    assert f"const APP = '{cdn.APP_ORIGIN}';" in source
    assert re.findall(r"selectRequestOriginById\((\w+)\)", source) == ["APP"]
    behaviours = [distribution["DefaultCacheBehavior"], *distribution["CacheBehaviors"]]
    reaching_app = 0
    for behaviour in behaviours:
        functions = [a["FunctionARN"] for a in behaviour.get("FunctionAssociations", [])]
        if behaviour["TargetOriginId"] != cdn.APP_ORIGIN and request_function not in functions:
            assert behaviour["TargetOriginId"] in (cdn.API_ORIGIN, cdn.SITE_ORIGIN)
            continue
        headers = origin_request_headers(resources, behaviour["OriginRequestPolicyId"])
        assert headers is not None and ratelimit.VIEWER_ADDRESS_HEADER in headers, behaviour
        reaching_app += 1
    assert reaching_app == 7  # the default, /manage*, and the five reader pages
    # What the app reads of the requests it gets this way.
    app_policy = origin_request_headers(resources, {"Ref": cdn.APP_ORIGIN_REQUESTS})
    assert {"accept", "content-type", "x-forwarded-host"} <= set(app_policy)
    for name in (cdn.APP_ORIGIN_REQUESTS, cdn.PAGES_ORIGIN_REQUESTS):
        config = resources[name]["Properties"]["OriginRequestPolicyConfig"]
        assert config["CookiesConfig"] == {"CookieBehavior": "all"}
        assert config["QueryStringsConfig"] == {"QueryStringBehavior": "all"}


def test_caching_follows_each_answers_cache_control_and_errors_are_kept_briefly(
    resources, distribution
):
    default = distribution["DefaultCacheBehavior"]
    assert default["CachePolicyId"] == {"Ref": cdn.PAGES_CACHE_POLICY}
    policy = resources[cdn.PAGES_CACHE_POLICY]["Properties"]["CachePolicyConfig"]
    # No TTL of CloudFront's own: max-age (and stale-*) of the object, `private` never kept.
    assert policy["MinTTL"] == 0 and policy["DefaultTTL"] == 0
    key = policy["ParametersInCacheKeyAndForwardedToOrigin"]
    assert key["EnableAcceptEncodingGzip"] and key["EnableAcceptEncodingBrotli"]
    assert key["HeadersConfig"]["Headers"] == ["x-forwarded-host"]
    assert key["CookiesConfig"] == {"CookieBehavior": "none"}
    assert default["Compress"] and default["ViewerProtocolPolicy"] == "redirect-to-https"
    errors = {answer["ErrorCode"]: answer for answer in distribution["CustomErrorResponses"]}
    assert {404, 500, 502, 503, 504} <= set(errors)
    for answer in errors.values():
        assert answer["ErrorCachingMinTTL"] <= 10
        assert "ResponsePagePath" not in answer  # the origin's own error body is kept


def test_the_functions_run_on_cloudfront_js_2_with_the_routing_store(resources, distribution):
    request = resources[cdn.VIEWER_REQUEST]["Properties"]
    assert request["FunctionConfig"]["Runtime"] == "cloudfront-js-2.0"
    assert request["FunctionConfig"]["KeyValueStoreAssociations"] == [
        {"KeyValueStoreARN": {"Fn::GetAtt": [cdn.HOSTS_STORE, "Arn"]}}
    ]
    assert request["AutoPublish"] is True
    before, store_id, after = request["FunctionCode"]["Fn::Join"][1]
    assert store_id == {"Fn::GetAtt": [cdn.HOSTS_STORE, "Id"]}
    source = cdn.function_code("viewer-request.js")
    assert before + cdn.HOSTS_STORE_ID_MARK + after == source
    assert source.startswith("import cf from 'cloudfront';")
    response = resources[cdn.VIEWER_RESPONSE]["Properties"]
    assert response["FunctionCode"] == cdn.function_code("viewer-response.js")
    events = {
        a["EventType"]: a["FunctionARN"]
        for a in distribution["DefaultCacheBehavior"]["FunctionAssociations"]
    }
    assert events == {
        "viewer-request": {"Fn::GetAtt": [cdn.VIEWER_REQUEST, "FunctionARN"]},
        "viewer-response": {"Fn::GetAtt": [cdn.VIEWER_RESPONSE, "FunctionARN"]},
    }


def test_the_wildcard_certificate_and_its_alias_are_parameters(distribution):
    template = json.loads(generate.RESOURCES_FILE.read_text())
    assert {"PublicCertificateArn", "PublicAliases"} <= set(template["Parameters"])
    assert "*.${PublicDomain}" in json.dumps(distribution["Aliases"])
    certificate = distribution["ViewerCertificate"]["Fn::If"]
    assert certificate[0] == "HasPublicCertificate"
    assert certificate[1]["AcmCertificateArn"] == {"Ref": "PublicCertificateArn"}
    assert certificate[1]["SslSupportMethod"] == "sni-only"
    assert certificate[2] == {"CloudFrontDefaultCertificate": True}
    assert set(template["Outputs"]) >= {"SiteDomainName", "SiteHostsStoreArn", "SiteHostsStoreId"}


def test_only_the_publisher_keeps_the_routing_and_the_api_may_only_withdraw_a_page(resources):
    granted: dict[str, set[str]] = {}
    for name, policy in of_type(resources, "AWS::IAM::Policy").items():
        for statement in policy["Properties"]["PolicyDocument"]["Statement"]:
            for action in as_list(statement["Action"]):
                if action.startswith("cloudfront-keyvaluestore:"):
                    assert statement["Resource"] == cdn.hosts_store_arn()
                    granted.setdefault(name, set()).add(action.split(":")[1])
    assert granted == {
        "SitePublisherPolicy": {"DescribeKeyValueStore", "GetKey", "UpdateKeys"},
        "SiteWithdrawalPolicy": {"DescribeKeyValueStore", "UpdateKeys"},
    }
    assert resources["SiteWithdrawalPolicy"]["Properties"]["Roles"] == [{"Ref": "ApiHandlerRole"}]
    for function in ("PublishPages", "APIHandler"):
        variables = resources[function]["Properties"]["Environment"]["Variables"]
        assert variables["SITE_HOSTS_STORE"] == cdn.hosts_store_arn()
    assert "SitePublisherPolicy" in resources["PublishPages"]["DependsOn"]
    assert "SiteWithdrawalPolicy" in resources["APIHandler"]["DependsOn"]


def test_the_code_calls_the_store_only_as_granted():
    from pathlib import Path

    source = (Path(generate.ROOT) / "chalicelib" / "sitestore" / "hosts.py").read_text()
    calls = set(re.findall(r"_client\(\)\.(\w+)\(", source))
    assert calls == {"describe_key_value_store", "get_key", "update_keys"}
    granted = {action.split(":")[1] for action in cdn.HOSTS_STORE_ACTIONS}
    assert {"".join(part.title() for part in call.split("_")) for call in calls} == granted


def test_the_api_writes_only_the_uploaded_images_of_the_bucket(resources):
    """The console's uploads (`sitestore/branding.py`) go to `branding/`; the pages' published
    prefixes stay the publisher's alone."""
    api = resources["SiteWithdrawalPolicy"]["Properties"]["PolicyDocument"]["Statement"]
    writes = [s for s in api if "s3:PutObject" in as_list(s["Action"])]
    assert [s["Resource"] for s in writes] == [{"Fn::Sub": "${SiteBucket.Arn}/branding/*"}]
    listing = next(s for s in api if "s3:ListBucket" in as_list(s["Action"]))
    assert listing["Condition"] == {"StringLike": {"s3:prefix": ["branding/*"]}}
    for name, policy in of_type(resources, "AWS::IAM::Policy").items():
        for statement in policy["Properties"]["PolicyDocument"]["Statement"]:
            resources_named = json.dumps(statement.get("Resource"))
            if "s3:PutObject" in as_list(statement["Action"]) and "/s/*" in resources_named:
                assert name == "SitePublisherPolicy"


def test_the_publisher_may_only_delete_the_uploaded_images(resources):
    """A deleted page's images go with its files: the publish function deletes under
    `branding/`, and neither reads nor writes there."""
    publisher = resources["SitePublisherPolicy"]["Properties"]["PolicyDocument"]["Statement"]
    images = [s for s in publisher if "branding/" in json.dumps(s.get("Resource"))]
    assert [(s["Action"], s["Resource"]) for s in images] == [
        (["s3:DeleteObject"], {"Fn::Sub": "${SiteBucket.Arn}/branding/*"})
    ]
