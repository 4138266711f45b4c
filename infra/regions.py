"""Two regions, active-active, for `infra/generate.py` (docs/deploy.md, Two regions).

One template makes both regions' stacks; the `Role` parameter says which one a stack is:

- `primary` (the default, and the only stack of a one-region deployment) makes what exists
  once: the DynamoDB global tables (a replica here and, with `SecondaryRegion`, one there),
  the secrets (replicated to `SecondaryRegion` by Secrets Manager), the CloudFront
  distribution with its functions and routing store.
- `secondary` makes what every region needs of its own: the functions, the API, the queues,
  the schedule, SES's configuration set, the alarm topic, the site bucket, and its Route 53
  failover record with its health check. It finds the primary's once-only resources by name
  (the tables and secrets have the same name in every region) or by parameter (the
  distribution and the routing store, which are global).

The site: each region's publisher writes its own bucket, and S3 replication copies each
bucket to the other (`PeerSiteBucket`): a region alone still publishes where CloudFront reads
(its own bucket is the origin group's other member), and with both up either region's
publish reaches both buckets. S3 does not replicate a replica, so the two rules make no loop.

The API: CloudFront's origin group fails over only GET and HEAD, and CloudFront refuses one on
a behaviour that allows writes, which must move too: the app's origins are a Route 53 failover
name (`AppOriginName`), PRIMARY on the primary region's API and SECONDARY on the secondary's,
each with a health check of its region's `GET /v1/health`, which reads the region's table.
With the origin group, the pages' default behaviour takes GET, HEAD and OPTIONS, and a page's
POST paths have behaviours of their own (`PAGE_WRITE_PATHS`).
"""

from typing import Any

ROLE = "Role"
SECONDARY_REGION = "SecondaryRegion"
PEER_SITE_BUCKET = "PeerSiteBucket"
APP_ORIGIN_NAME = "AppOriginName"
HOSTS_STORE_ID = "SiteHostsStoreId"

IS_PRIMARY = "IsPrimary"
HAS_SECONDARY_REGION = "HasSecondaryRegion"
HAS_PEER_SITE = "HasPeerSite"
HAS_APP_FAILOVER = "HasAppFailover"

# The secondary's second bucket origin in the primary's distribution, and the group over both.
SITE_PEER_ORIGIN = "site-peer"
SITE_ORIGIN_GROUP = "site-group"
# What the bucket of the failed region answers: S3's 5xx, and 403/404 when its objects are
# not there (a region's S3 without its data answers AccessDenied or NoSuchKey for a key the
# other bucket holds). A page that is in neither bucket is the other bucket's 404 all the same.
SITE_FAILOVER_CODES = [403, 404, 500, 502, 503, 504]

REPLICATION_ROLE = "SiteReplicationRole"
REPLICATION_POLICY = "SiteReplicationPolicy"
APP_DOMAIN = "AppOriginDomain"
APP_DOMAIN_MAPPING = "AppOriginMapping"
APP_HEALTH_CHECK = "AppHealthCheck"
APP_FAILOVER_RECORD = "AppFailoverRecord"
HEALTH_PATH = "/v1/health"
# Route 53 asks every 10 s and turns after 3 failures: the API moves within about 30 s of
# its region's table or functions failing (the fast interval costs more: docs/deploy.md).
HEALTH_INTERVAL_SECONDS = 10
HEALTH_FAILURES = 3
FAILOVER_RECORD_TTL = 30
# Route 53 asks from every checker region unless told; three (its least) keep the requests
# each region's API, function and table answer at idle to about a third (docs/deploy.md, the
# second region's cost), on three continents.
HEALTH_CHECKER_REGIONS = ["us-east-1", "eu-west-1", "ap-southeast-1"]

PARAMETERS: dict[str, dict[str, Any]] = {
    ROLE: {
        "Type": "String",
        "Default": "primary",
        "AllowedValues": ["primary", "secondary"],
        "Description": "primary: the stack with the global tables, the secrets and the "
        "distribution; secondary: the other region's functions, queues, bucket and failover "
        "record (docs/deploy.md, Two regions).",
    },
    SECONDARY_REGION: {
        "Type": "String",
        "Default": "",
        "AllowedPattern": "^([a-z]{2}(-[a-z]+)+-[0-9])?$",
        "Description": "Primary only: the other region, where the tables and secrets get "
        "a replica and PeerSiteBucket is; empty: one region.",
    },
    PEER_SITE_BUCKET: {
        "Type": "String",
        "Default": "",
        "Description": "The other region's site bucket (its stack's SiteBucketName): this "
        "bucket replicates to it, and the primary's distribution fails over to it.",
    },
    "SiteDistributionId": {
        "Type": "String",
        "Default": "",
        "Description": "Secondary only: the primary's SiteDistributionId, which reads this "
        "region's bucket.",
    },
    HOSTS_STORE_ID: {
        "Type": "String",
        "Default": "",
        "AllowedPattern": "^[0-9a-f-]*$",
        "Description": "Secondary only: the primary's SiteHostsStoreId, the routing the "
        "publisher keeps.",
    },
    APP_ORIGIN_NAME: {
        "Type": "String",
        "Default": "",
        "Description": "The API's failover name (app.origin.example.com) in the hosted "
        "zone AppOriginZoneId: both regions answer it; empty: CloudFront reaches this "
        "region's API directly.",
    },
    "AppOriginZoneId": {
        "Type": "String",
        "Default": "",
        "Description": "The Route 53 hosted zone of AppOriginName.",
    },
    "AppOriginCertificateArn": {
        "Type": "String",
        "Default": "",
        "Description": "An ACM certificate of AppOriginName in this stack's region.",
    },
}


def _not_empty(parameter: str) -> dict:
    return {"Fn::Not": [{"Fn::Equals": [{"Ref": parameter}, ""]}]}


CONDITIONS = {
    IS_PRIMARY: {"Fn::Equals": [{"Ref": ROLE}, "primary"]},
    HAS_SECONDARY_REGION: _not_empty(SECONDARY_REGION),
    HAS_PEER_SITE: _not_empty(PEER_SITE_BUCKET),
    HAS_APP_FAILOVER: _not_empty(APP_ORIGIN_NAME),
}


def primary_or(primary: Any, secondary: Any) -> dict:
    """`primary` in the primary's stack, `secondary` (a parameter, a name) in the other's."""
    return {"Fn::If": [IS_PRIMARY, primary, secondary]}


def only_in_primary(resources: dict[str, dict]) -> dict[str, dict]:
    """What exists once: the primary's stack makes it."""
    return {key: {**resource, "Condition": IS_PRIMARY} for key, resource in resources.items()}


def global_table(table: dict) -> dict:
    """A table of `generate.table_resources` as a global table: the same keys, indexes, time
    to live and on-demand billing, and a replica in each region, each with point-in-time
    recovery (a property of the replica, not of the table).

    Multi-Region eventual consistency (the default, and the only mode given here): a write
    commits in its region and replicates in about a second, last writer wins per item, and a
    condition or a transaction is evaluated in the region that runs it. Strong consistency
    was refused: it supports no transactions (the unit of work commits with
    TransactWriteItems), no time to live (claims and rate windows expire by it), needs three
    regions (or two and a witness) and an empty table to start, and makes every write wait
    for another region, which is what an outage takes away (docs/deploy.md, Two regions).
    """
    properties = dict(table["Properties"])
    recovery = properties.pop("PointInTimeRecoverySpecification")

    def replica(region: Any) -> dict:
        return {"Region": region, "PointInTimeRecoverySpecification": recovery}

    properties["Replicas"] = [
        replica({"Ref": "AWS::Region"}),
        {
            "Fn::If": [
                HAS_SECONDARY_REGION,
                replica({"Ref": SECONDARY_REGION}),
                {"Ref": "AWS::NoValue"},
            ]
        },
    ]
    # Global tables replicate through the table's stream, which more than one replica needs.
    properties["StreamSpecification"] = {
        "Fn::If": [
            HAS_SECONDARY_REGION,
            {"StreamViewType": "NEW_AND_OLD_IMAGES"},
            {"Ref": "AWS::NoValue"},
        ]
    }
    return {
        **table,
        "Type": "AWS::DynamoDB::GlobalTable",
        "Condition": IS_PRIMARY,
        "Properties": properties,
    }


def table_arn(logical_id: str, table_name: str, suffix: str = "") -> dict:
    """The ARN of this region's replica, named rather than referred to: the secondary's
    stack has no table resource, and each region's functions use their own replica."""
    return {
        "Fn::Sub": [
            "arn:${AWS::Partition}:dynamodb:${AWS::Region}:${AWS::AccountId}:table/"
            f"${{{logical_id}}}{suffix}",
            {logical_id: table_name},
        ]
    }


def replicated_secret(secret: dict) -> dict:
    """A secret the primary makes and Secrets Manager replicates to the secondary region,
    under the same name (the secondary's functions read their region's replica by name)."""
    properties = {
        **secret["Properties"],
        "ReplicaRegions": {
            "Fn::If": [
                HAS_SECONDARY_REGION,
                [{"Region": {"Ref": SECONDARY_REGION}}],
                {"Ref": "AWS::NoValue"},
            ]
        },
    }
    return {**secret, "Condition": IS_PRIMARY, "Properties": properties}


def secret_reference(logical_id: str, name: str) -> dict:
    """What a function's environment names a secret by: its ARN in the primary, its name (the
    replica's ARN ends in another random suffix) in the secondary."""
    return primary_or({"Ref": logical_id}, name)


def secret_arn(logical_id: str, name: str) -> dict:
    """A secret in a policy: the primary's own, or this region's replica by its name
    (Secrets Manager adds `-` and six characters to the name)."""
    return primary_or(
        {"Ref": logical_id},
        {
            "Fn::Sub": "arn:${AWS::Partition}:secretsmanager:${AWS::Region}:${AWS::AccountId}"
            f":secret:{name}-??????"
        },
    )


def site_replication(bucket: str) -> dict[str, Any]:
    """The site bucket's replication to the other region's (when `PeerSiteBucket` is given):
    every object, as soon as S3 can, with delete markers (a withdrawn page goes from both)."""
    return {
        "Fn::If": [
            HAS_PEER_SITE,
            {
                "Role": {"Fn::GetAtt": [REPLICATION_ROLE, "Arn"]},
                "Rules": [
                    {
                        "Id": "to-the-other-region",
                        "Status": "Enabled",
                        "Priority": 1,
                        "Filter": {"Prefix": ""},
                        "DeleteMarkerReplication": {"Status": "Enabled"},
                        "Destination": {
                            "Bucket": {
                                "Fn::Sub": f"arn:${{AWS::Partition}}:s3:::${{{PEER_SITE_BUCKET}}}"
                            }
                        },
                    }
                ],
            },
            {"Ref": "AWS::NoValue"},
        ]
    }


def replication_role(bucket: str) -> dict[str, dict]:
    """What S3 replicates as: reads this bucket's versions, writes the peer's replicas."""
    this = f"${{{bucket}.Arn}}"
    peer = f"arn:${{AWS::Partition}}:s3:::${{{PEER_SITE_BUCKET}}}"
    return {
        REPLICATION_ROLE: {
            "Type": "AWS::IAM::Role",
            "Condition": HAS_PEER_SITE,
            "Properties": {
                "AssumeRolePolicyDocument": {
                    "Version": "2012-10-17",
                    "Statement": [
                        {
                            "Effect": "Allow",
                            "Principal": {"Service": "s3.amazonaws.com"},
                            "Action": "sts:AssumeRole",
                        }
                    ],
                },
            },
        },
        # A policy of its own: the bucket names the role, and the policy names the bucket.
        REPLICATION_POLICY: {
            "Type": "AWS::IAM::Policy",
            "Condition": HAS_PEER_SITE,
            "Properties": {
                "PolicyName": "site-replication",
                "Roles": [{"Ref": REPLICATION_ROLE}],
                "PolicyDocument": {
                    "Version": "2012-10-17",
                    "Statement": [
                        {
                            "Sid": "ReadThisBucket",
                            "Effect": "Allow",
                            "Action": ["s3:GetReplicationConfiguration", "s3:ListBucket"],
                            "Resource": {"Fn::Sub": this},
                        },
                        {
                            "Sid": "ReadItsVersions",
                            "Effect": "Allow",
                            "Action": [
                                "s3:GetObjectVersionForReplication",
                                "s3:GetObjectVersionAcl",
                                "s3:GetObjectVersionTagging",
                            ],
                            "Resource": {"Fn::Sub": f"{this}/*"},
                        },
                        {
                            "Sid": "WriteThePeersReplicas",
                            "Effect": "Allow",
                            "Action": [
                                "s3:ReplicateObject",
                                "s3:ReplicateDelete",
                                "s3:ReplicateTags",
                            ],
                            "Resource": {"Fn::Sub": f"{peer}/*"},
                        },
                    ],
                },
            },
        },
    }


def peer_site_origin(access_control: dict) -> dict:
    """The other region's bucket, read through the same Origin Access Control."""
    return {
        "Fn::If": [
            HAS_PEER_SITE,
            {
                "Id": SITE_PEER_ORIGIN,
                "DomainName": {
                    "Fn::Sub": f"${{{PEER_SITE_BUCKET}}}.s3.${{{SECONDARY_REGION}}}.${{AWS::URLSuffix}}"
                },
                "S3OriginConfig": {"OriginAccessIdentity": ""},
                "OriginAccessControlId": access_control,
            },
            {"Ref": "AWS::NoValue"},
        ]
    }


def site_origin_groups(site_origin: str) -> dict:
    """The two buckets as one origin: this region's first, the other's on a failure."""
    return {
        "Fn::If": [
            HAS_PEER_SITE,
            {
                "Quantity": 1,
                "Items": [
                    {
                        "Id": SITE_ORIGIN_GROUP,
                        "FailoverCriteria": {
                            "StatusCodes": {
                                "Quantity": len(SITE_FAILOVER_CODES),
                                "Items": SITE_FAILOVER_CODES,
                            }
                        },
                        "Members": {
                            "Quantity": 2,
                            "Items": [{"OriginId": site_origin}, {"OriginId": SITE_PEER_ORIGIN}],
                        },
                    }
                ],
            },
            {"Ref": "AWS::NoValue"},
        ]
    }


# The paths of a page (below `/s/{ref}/` or at a host's root) that take a POST: subscribing
# (chalicelib/public/subscriptions.py, incident_subscriptions.py, subscriber_api.py) and the
# subscription links at a host's root (`/s/*/subscriptions/*` is the app's own behaviour).
# With two regions the default behaviour allows GET and HEAD only (its origin group), so these
# keep every method, on this region's bucket alone: their GET is the subscribe form's page.
PAGE_WRITE_PATHS = ["*/subscribe", "*/api/v2/subscribers.json", "/subscriptions/*"]
GROUP_METHODS = ["GET", "HEAD", "OPTIONS"]


def site_methods(all_methods: list[str]) -> dict:
    return {"Fn::If": [HAS_PEER_SITE, GROUP_METHODS, all_methods]}


def page_write_behaviour(behaviour: dict) -> dict:
    return {"Fn::If": [HAS_PEER_SITE, behaviour, {"Ref": "AWS::NoValue"}]}


def site_target(site_origin: str) -> dict:
    return {"Fn::If": [HAS_PEER_SITE, SITE_ORIGIN_GROUP, site_origin]}


def distribution_arn(distribution: str) -> dict:
    """The distribution that reads this region's bucket: the primary's own, or the one its
    `SiteDistributionId` names."""
    return {
        "Fn::Sub": [
            "arn:${AWS::Partition}:cloudfront::${AWS::AccountId}:distribution/${Id}",
            {"Id": primary_or({"Ref": distribution}, {"Ref": "SiteDistributionId"})},
        ]
    }


def app_origin_domain(rest_api: str) -> dict:
    """Where CloudFront sends the app's requests: the failover name when there is one, else
    this region's API Gateway stage."""
    return {
        "Fn::If": [
            HAS_APP_FAILOVER,
            {"Ref": APP_ORIGIN_NAME},
            {"Fn::Sub": f"${{{rest_api}}}.execute-api.${{AWS::Region}}.${{AWS::URLSuffix}}"},
        ]
    }


def app_origin_path(api_stage: str) -> dict:
    """The failover name's custom domain maps its root to the stage; the stage's own name
    needs the stage's path."""
    return {"Fn::If": [HAS_APP_FAILOVER, "", f"/{api_stage}"]}


def app_failover_resources(rest_api: str, api_stage: str) -> dict[str, dict]:
    """In each region: the failover name as the API's custom domain (so that its certificate
    matches what CloudFront asks for), the health check of this region's `/v1/health`, and
    this region's record of the name (PRIMARY in the primary's stack, SECONDARY in the
    other's), answered while its health check passes."""
    regional_domain = {"Fn::GetAtt": [APP_DOMAIN, "RegionalDomainName"]}
    return {
        APP_DOMAIN: {
            "Type": "AWS::ApiGateway::DomainName",
            "Condition": HAS_APP_FAILOVER,
            "Properties": {
                "DomainName": {"Ref": APP_ORIGIN_NAME},
                "RegionalCertificateArn": {"Ref": "AppOriginCertificateArn"},
                "EndpointConfiguration": {"Types": ["REGIONAL"]},
                "SecurityPolicy": "TLS_1_2",
            },
        },
        APP_DOMAIN_MAPPING: {
            "Type": "AWS::ApiGateway::BasePathMapping",
            "Condition": HAS_APP_FAILOVER,
            "Properties": {
                "DomainName": {"Ref": APP_DOMAIN},
                "RestApiId": {"Ref": rest_api},
                # SAM's name for the API's stage: the mapping waits for the stage.
                "Stage": {"Ref": f"{rest_api}.Stage"},
            },
        },
        APP_HEALTH_CHECK: {
            "Type": "AWS::Route53::HealthCheck",
            "Condition": HAS_APP_FAILOVER,
            "Properties": {
                "HealthCheckConfig": {
                    "Type": "HTTPS",
                    # The region's own stage, not the failover name (which answers for
                    # whichever region is healthy).
                    "FullyQualifiedDomainName": {
                        "Fn::Sub": f"${{{rest_api}}}.execute-api.${{AWS::Region}}.${{AWS::URLSuffix}}"
                    },
                    "ResourcePath": f"/{api_stage}{HEALTH_PATH}",
                    "Port": 443,
                    # API Gateway answers only a TLS handshake that names its host.
                    "EnableSNI": True,
                    "RequestInterval": HEALTH_INTERVAL_SECONDS,
                    "FailureThreshold": HEALTH_FAILURES,
                    "Regions": HEALTH_CHECKER_REGIONS,
                },
                "HealthCheckTags": [
                    {"Key": "Name", "Value": {"Fn::Sub": "${AWS::StackName} ${AWS::Region}"}}
                ],
            },
        },
        APP_FAILOVER_RECORD: {
            "Type": "AWS::Route53::RecordSet",
            "Condition": HAS_APP_FAILOVER,
            "Properties": {
                "HostedZoneId": {"Ref": "AppOriginZoneId"},
                "Name": {"Ref": APP_ORIGIN_NAME},
                "Type": "CNAME",
                "TTL": FAILOVER_RECORD_TTL,
                "SetIdentifier": {"Ref": "AWS::Region"},
                "Failover": primary_or("PRIMARY", "SECONDARY"),
                "HealthCheckId": {"Ref": APP_HEALTH_CHECK},
                "ResourceRecords": [regional_domain],
            },
        },
    }
