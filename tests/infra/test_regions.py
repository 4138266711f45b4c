"""Two regions from one template (infra/regions.py, docs/deploy.md, Two regions): what each
region's stack makes, the global tables and replicated secrets, the site's origin group, the
API's Route 53 failover name. The rehearsal's emulator makes none of the global parts, so they
are checked here, on the committed template, with its conditions evaluated as CloudFormation
would for each role."""

import json

import pytest

from infra import cdn, emulated_template, generate, regions

from .conditions import chosen, condition_values, made

TWO_REGIONS = {
    "Role": "primary",
    "SecondaryRegion": "us-west-2",
    "PeerSiteBucket": "statuspage-prod-sitebucket-west",
    "AppOriginName": "app.origin.example.com",
}
SECONDARY = {
    "Role": "secondary",
    "PeerSiteBucket": "statuspage-prod-sitebucket-east",
    "SiteDistributionId": "E2EXAMPLE",
    "SiteHostsStoreId": "0123abcd-0000-4000-8000-000000000000",
    "AppOriginName": "app.origin.example.com",
}


@pytest.fixture(scope="module")
def template() -> dict:
    return json.loads(generate.RESOURCES_FILE.read_text())


def test_the_primary_makes_the_global_tables_secrets_and_distribution(template):
    kinds = set(made(template, TWO_REGIONS).values())
    assert {
        "AWS::DynamoDB::GlobalTable",
        "AWS::SecretsManager::Secret",
        "AWS::CloudFront::Distribution",
        "AWS::CloudFront::KeyValueStore",
        "AWS::Route53::RecordSet",
        "AWS::Route53::HealthCheck",
    } <= kinds
    assert "AWS::DynamoDB::Table" not in kinds


def test_the_secondary_makes_its_regions_own_and_nothing_that_exists_once(template):
    primary = made(template, TWO_REGIONS)
    secondary = made(template, SECONDARY)
    once = {
        "AWS::DynamoDB::GlobalTable",
        "AWS::SecretsManager::Secret",
        "AWS::CloudFront::Distribution",
        "AWS::CloudFront::KeyValueStore",
        "AWS::CloudFront::Function",
    }
    assert not once & set(secondary.values())
    # Everything else of the primary's the secondary makes too: functions, queues, the
    # schedule (Chalice's, merged), SES's configuration, the alarm topic, its bucket and its
    # failover record.
    for key in set(primary) - set(secondary):
        assert template["Resources"][key]["Condition"] == regions.IS_PRIMARY, key
    for kind in (
        "AWS::SQS::Queue",
        "AWS::S3::Bucket",
        "AWS::SES::ConfigurationSet",
        "AWS::SNS::Topic",
        "AWS::Route53::RecordSet",
        "AWS::Route53::HealthCheck",
    ):
        assert kind in secondary.values(), kind


def test_every_global_table_has_a_replica_in_the_secondary_region_with_recovery(template):
    conditions = condition_values(template, TWO_REGIONS)
    tables = {
        key: chosen(resource["Properties"], conditions)
        for key, resource in template["Resources"].items()
        if resource.get("Type") == "AWS::DynamoDB::GlobalTable"
    }
    assert len(tables) == len(generate.table_resources("prod"))
    for key, table in tables.items():
        regions_of = [replica["Region"] for replica in table["Replicas"]]
        assert regions_of == [{"Ref": "AWS::Region"}, {"Ref": "SecondaryRegion"}], key
        for replica in table["Replicas"]:
            assert replica["PointInTimeRecoverySpecification"] == {
                "PointInTimeRecoveryEnabled": True
            }, key
        # Two replicas replicate through the table's stream.
        assert table["StreamSpecification"] == {"StreamViewType": "NEW_AND_OLD_IMAGES"}, key
        assert table["BillingMode"] == "PAY_PER_REQUEST", key
        # Multi-Region eventual consistency (the default): strong consistency would refuse
        # the unit of work's transactions and the claims' time to live.
        assert "MultiRegionConsistency" not in table, key


def test_one_region_makes_one_replica_and_no_stream(template):
    conditions = condition_values(template, {})
    for resource in template["Resources"].values():
        if resource.get("Type") == "AWS::DynamoDB::GlobalTable":
            properties = chosen(resource["Properties"], conditions)
            assert len(properties["Replicas"]) == 1
            assert "StreamSpecification" not in properties


def test_the_secrets_replicate_to_the_secondary_region(template):
    conditions = condition_values(template, TWO_REGIONS)
    for key in (generate.SIGNING_SECRET, generate.ORIGIN_VERIFY_SECRET):
        properties = chosen(template["Resources"][key]["Properties"], conditions)
        assert properties["ReplicaRegions"] == [{"Region": {"Ref": "SecondaryRegion"}}]


def test_the_secondary_finds_the_replicas_by_name_and_the_routing_by_parameter(template):
    conditions = condition_values(template, SECONDARY)
    variables = chosen(
        template["Resources"]["PublishPages"]["Properties"]["Environment"]["Variables"],
        conditions,
    )
    names = {
        key: template["Resources"][key]["Properties"]["Name"]
        for key in (generate.SIGNING_SECRET, generate.ORIGIN_VERIFY_SECRET)
    }
    assert variables["SIGNING_SECRET_ID"] == names[generate.SIGNING_SECRET]
    assert variables["ORIGIN_VERIFY_SECRET_ID"] == names[generate.ORIGIN_VERIFY_SECRET]
    assert variables["SITE_HOSTS_STORE"] == {
        "Fn::Sub": "arn:${AWS::Partition}:cloudfront::${AWS::AccountId}:key-value-store/"
        "${SiteHostsStoreId}"
    }
    # Nothing the secondary's functions or policies name is a resource it does not make.
    secondary = made(template, SECONDARY)
    for key, resource in template["Resources"].items():
        if key in secondary:
            text = json.dumps(chosen(resource, conditions))
            for absent in set(template["Resources"]) - set(secondary):
                assert f'"Ref": "{absent}"' not in text, (key, absent)
                assert f'["{absent}", ' not in text, (key, absent)
                assert f"${{{absent}." not in text, (key, absent)


def test_the_origin_group_fails_over_from_this_regions_bucket_to_the_others(template):
    conditions = condition_values(template, TWO_REGIONS)
    distribution = chosen(
        template["Resources"][cdn.DISTRIBUTION]["Properties"]["DistributionConfig"], conditions
    )
    origins = {origin["Id"]: origin for origin in distribution["Origins"]}
    assert origins[regions.SITE_PEER_ORIGIN]["DomainName"] == {
        "Fn::Sub": "${PeerSiteBucket}.s3.${SecondaryRegion}.${AWS::URLSuffix}"
    }
    assert (
        origins[regions.SITE_PEER_ORIGIN]["OriginAccessControlId"]
        == origins[cdn.SITE_ORIGIN]["OriginAccessControlId"]
    )
    (group,) = distribution["OriginGroups"]["Items"]
    assert [member["OriginId"] for member in group["Members"]["Items"]] == [
        cdn.SITE_ORIGIN,
        regions.SITE_PEER_ORIGIN,
    ]
    assert set(group["FailoverCriteria"]["StatusCodes"]["Items"]) == {403, 404, 500, 502, 503, 504}
    assert distribution["DefaultCacheBehavior"]["TargetOriginId"] == group["Id"]
    # One region: the bucket alone, no group.
    alone = chosen(
        template["Resources"][cdn.DISTRIBUTION]["Properties"]["DistributionConfig"],
        condition_values(template, {}),
    )
    assert "OriginGroups" not in alone
    assert alone["DefaultCacheBehavior"]["TargetOriginId"] == cdn.SITE_ORIGIN


def test_each_bucket_replicates_to_the_other_regions(template):
    for given in (TWO_REGIONS, SECONDARY):
        conditions = condition_values(template, given)
        bucket = chosen(template["Resources"][generate.SITE_BUCKET]["Properties"], conditions)
        (rule,) = bucket["ReplicationConfiguration"]["Rules"]
        assert rule["Destination"]["Bucket"] == {
            "Fn::Sub": "arn:${AWS::Partition}:s3:::${PeerSiteBucket}"
        }
        assert rule["DeleteMarkerReplication"] == {"Status": "Enabled"}
        # The distribution reads this bucket, wherever it is.
        policy = chosen(template["Resources"][cdn.BUCKET_POLICY]["Properties"], conditions)
        reads = policy["PolicyDocument"]["Statement"][0]
        expected = "SiteDistribution" if given["Role"] == "primary" else "SiteDistributionId"
        assert reads["Condition"]["StringEquals"]["AWS:SourceArn"]["Fn::Sub"][1] == {
            "Id": {"Ref": expected}
        }


def test_the_api_is_a_route53_failover_name_with_a_health_check_of_each_region(template):
    records = {}
    for given in (TWO_REGIONS, SECONDARY):
        conditions = condition_values(template, given)
        resources = template["Resources"]
        record = chosen(resources[regions.APP_FAILOVER_RECORD]["Properties"], conditions)
        check = chosen(resources[record["HealthCheckId"]["Ref"]]["Properties"], conditions)
        config = check["HealthCheckConfig"]
        assert config["Type"] == "HTTPS"
        assert config["ResourcePath"] == "/api/v1/health"
        # Each region's own stage, not the failover name, which answers for either region.
        assert config["FullyQualifiedDomainName"] == {
            "Fn::Sub": "${RestAPI}.execute-api.${AWS::Region}.${AWS::URLSuffix}"
        }
        assert record["Name"] == {"Ref": "AppOriginName"}
        assert record["SetIdentifier"] == {"Ref": "AWS::Region"}
        records[record["Failover"]] = record
    assert set(records) == {"PRIMARY", "SECONDARY"}
    # CloudFront's app and api origins are that name, for every method (an origin group would
    # fail over GET and HEAD only).
    conditions = condition_values(template, TWO_REGIONS)
    distribution = chosen(
        template["Resources"][cdn.DISTRIBUTION]["Properties"]["DistributionConfig"], conditions
    )
    origins = {origin["Id"]: origin for origin in distribution["Origins"]}
    for origin in (cdn.APP_ORIGIN, cdn.API_ORIGIN):
        assert origins[origin]["DomainName"] == {"Ref": "AppOriginName"}
        assert origins[origin]["OriginPath"] == ""


def test_the_health_route_is_the_one_the_app_serves():
    from app import app

    assert regions.HEALTH_PATH in app.routes


def test_the_emulator_makes_each_global_table_as_its_regions_plain_table(template):
    plain = emulated_template.with_plain_tables(template)
    for key, resource in template["Resources"].items():
        if resource.get("Type") != "AWS::DynamoDB::GlobalTable":
            continue
        table = plain["Resources"][key]
        assert table["Type"] == "AWS::DynamoDB::Table"
        properties = table["Properties"]
        assert "Replicas" not in properties
        assert properties["PointInTimeRecoverySpecification"] == {
            "PointInTimeRecoveryEnabled": True
        }
        for kept in ("TableName", "KeySchema", "AttributeDefinitions", "BillingMode"):
            assert properties[kept] == resource["Properties"][kept], (key, kept)


def test_with_two_regions_every_route_still_reaches_a_behaviour_allowing_its_method(template):
    from tests.infra.test_cdn import app_routes, behaviour_of, sample

    config = template["Resources"][cdn.DISTRIBUTION]["Properties"]["DistributionConfig"]
    distribution = chosen(config, condition_values(template, TWO_REGIONS))
    group = distribution["DefaultCacheBehavior"]
    # CloudFront refuses an origin group on a behaviour that allows writes.
    assert group["AllowedMethods"] == ["GET", "HEAD", "OPTIONS"]
    for route, method in app_routes():
        behaviour = behaviour_of(distribution, sample(route))
        assert method in behaviour["AllowedMethods"], (route, method)
