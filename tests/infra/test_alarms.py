"""The alarms an operator receives, and SES's bounces and complaints reaching the app: read
from the committed template (tests/infra/test_template.py checks it is what the code makes)."""

import json

import pytest

from chalicelib.notify import delivery_metrics
from infra import alarms, email_events, generate

STAGE = "prod"


@pytest.fixture(scope="module")
def template() -> dict:
    return json.loads(generate.RESOURCES_FILE.read_text())


@pytest.fixture(scope="module")
def resources(template) -> dict:
    return template["Resources"]


def alarms_in(resources: dict) -> list[dict]:
    return [
        resource["Properties"]
        for resource in resources.values()
        if resource.get("Type") == "AWS::CloudWatch::Alarm"
    ]


def metric_alarms(resources: dict, namespace: str, metric: str) -> list[dict]:
    return [
        alarm
        for alarm in alarms_in(resources)
        if alarm.get("Namespace") == namespace and alarm.get("MetricName") == metric
    ]


def dimension(alarm: dict, name: str):
    return next(d["Value"] for d in alarm["Dimensions"] if d["Name"] == name)


def test_every_alarm_notifies_the_alarm_topic_and_says_when_it_is_over(resources):
    found = alarms_in(resources)
    assert found
    for alarm in found:
        assert alarm["AlarmActions"] == [{"Ref": alarms.TOPIC}], alarm["AlarmName"]
        assert alarm["OKActions"] == [{"Ref": alarms.TOPIC}], alarm["AlarmName"]
        assert alarm["TreatMissingData"] == "notBreaching", alarm["AlarmName"]


def test_the_alarm_topic_mails_the_address_of_the_alarm_email_parameter(template, resources):
    topic = resources[alarms.TOPIC]
    assert topic["Type"] == "AWS::SNS::Topic"
    assert topic["Properties"]["Subscription"] == [
        {"Protocol": "email", "Endpoint": {"Ref": "AlarmEmail"}}
    ]
    parameter = template["Parameters"]["AlarmEmail"]
    assert parameter["Type"] == "String" and "Default" not in parameter


def test_every_dead_letter_queue_alarms_as_soon_as_it_holds_a_message(resources):
    dead_letter_queues = {
        key
        for key, resource in resources.items()
        if resource.get("Type") == "AWS::SQS::Queue"
        and resource["Properties"]["QueueName"].endswith("-dlq")
    }
    assert len(dead_letter_queues) >= 4
    watched = {}
    for alarm in metric_alarms(resources, "AWS/SQS", "ApproximateNumberOfMessagesVisible"):
        queue = dimension(alarm, "QueueName")
        watched[queue["Fn::GetAtt"][0]] = alarm
    assert set(watched) == dead_letter_queues
    for alarm in watched.values():
        assert alarm["Threshold"] == 0
        assert alarm["ComparisonOperator"] == "GreaterThanThreshold"


@pytest.mark.parametrize("metric", ["Errors", "Throttles"])
def test_each_function_alarms_on_its_errors_and_throttles(resources, metric):
    functions = {function["logical_id"] for function in generate.functions(STAGE)}
    assert "ReadEmailEvents" in functions and "DeliverNotifications" in functions
    watched = {
        dimension(alarm, "FunctionName")["Ref"]: alarm
        for alarm in metric_alarms(resources, "AWS/Lambda", metric)
    }
    assert set(watched) == functions
    for alarm in watched.values():
        assert alarm["Statistic"] == "Sum" and alarm["Threshold"] == 0


def test_each_channel_alarms_on_its_share_of_failed_deliveries(resources):
    by_channel = {}
    for alarm in alarms_in(resources):
        if "Metrics" not in alarm:
            continue
        counts = {
            query["Id"]: query["MetricStat"]["Metric"]
            for query in alarm["Metrics"]
            if "MetricStat" in query
        }
        channels = {dimension(metric, "Channel") for metric in counts.values()}
        assert len(channels) == 1
        (channel,) = channels
        assert counts["sent"]["MetricName"] == delivery_metrics.SENT
        assert counts["failed"]["MetricName"] == delivery_metrics.FAILED
        for metric in counts.values():
            assert metric["Namespace"] == delivery_metrics.NAMESPACE
            assert dimension(metric, "Stage") == STAGE
        (share,) = [query for query in alarm["Metrics"] if query.get("ReturnData")]
        assert share["Expression"] == "FILL(failed, 0) / (FILL(sent, 0) + FILL(failed, 0))"
        assert 0 < alarm["Threshold"] < 1
        by_channel[channel] = alarm
    assert set(by_channel) == {"email", "sms", "webhook", "chat"}


def test_the_deliver_step_emits_the_counts_the_share_alarms_read(capsys):
    delivery_metrics.record([("email", True), ("email", False), ("slack", True), ("sms", True)])

    lines = [json.loads(line) for line in capsys.readouterr().err.splitlines()]
    by_channel = {line["Channel"]: line for line in lines}
    assert set(by_channel) == {"email", "chat", "sms"}
    assert by_channel["email"][delivery_metrics.SENT] == 1
    assert by_channel["email"][delivery_metrics.FAILED] == 1
    assert by_channel["chat"][delivery_metrics.SENT] == 1
    for line in lines:
        (directive,) = line["_aws"]["CloudWatchMetrics"]
        assert directive["Namespace"] == delivery_metrics.NAMESPACE
        assert directive["Dimensions"] == [["Stage", "Channel"]]
        names = {metric["Name"] for metric in directive["Metrics"]}
        assert names == {delivery_metrics.SENT, delivery_metrics.FAILED}


def test_the_publish_queue_alarms_when_its_oldest_message_is_old(resources):
    (alarm,) = metric_alarms(resources, "AWS/SQS", "ApproximateAgeOfOldestMessage")
    queue = dimension(alarm, "QueueName")["Fn::GetAtt"][0]
    name = resources[queue]["Properties"]["QueueName"]
    assert name == generate._queue_name("publish", STAGE)
    assert alarm["Threshold"] == alarms.PUBLISH_AGE_SECONDS


def test_ses_sends_bounces_and_complaints_to_the_topic_that_triggers_the_app(resources):
    destination = resources[email_events.EVENT_DESTINATION]["Properties"]
    assert destination["ConfigurationSetName"] == {"Ref": email_events.CONFIGURATION_SET}
    events = destination["EventDestination"]
    assert set(events["MatchingEventTypes"]) == {"bounce", "complaint"}
    assert events["SnsDestination"]["TopicARN"] == {"Ref": email_events.TOPIC}
    function = resources["ReadEmailEvents"]["Properties"]
    (subscription,) = function["Events"].values()
    assert subscription["Properties"]["Topic"] == {"Fn::Sub": "${" + email_events.TOPIC + "}"}
    from chalicelib import config

    topic = resources[email_events.TOPIC]["Properties"]["TopicName"]
    assert topic == config.topic_name("email-events").replace(f"-{config.stage()}-", "-prod-")


def test_every_function_sends_with_the_configuration_set_and_may(resources):
    for function in generate.functions(STAGE):
        variables = resources[function["logical_id"]]["Properties"]["Environment"]["Variables"]
        assert variables["SES_CONFIGURATION_SET"] == {"Ref": email_events.CONFIGURATION_SET}
    sending = [
        statement
        for policy in resources.values()
        if policy.get("Type") == "AWS::IAM::Policy"
        for statement in policy["Properties"]["PolicyDocument"]["Statement"]
        if statement.get("Sid") == "Email"
    ]
    assert sending, "no function may send email"
    for email in sending:
        assert email_events.configuration_set_arn() in email["Resource"]
