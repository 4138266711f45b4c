"""The alarms an operator receives, for `infra/generate.py`: CloudWatch alarms that notify an
SNS topic with an email subscription to the `AlarmEmail` parameter (docs/operations.md,
Alarms). Each also says when it is back to OK.

- a dead-letter queue holds a message: a notification, a delivery, data points or a publish
  failed `MAX_RECEIVES` times (`make admin ARGS="redrive --queue ..."` sends them back);
- a function raised (Errors) or was refused a run (Throttles);
- a channel failed more than `FAILED_SHARE` of its deliveries over `SHARE_PERIOD_SECONDS`
  (metric math on the counts `chalicelib/notify/delivery_metrics.py` emits);
- the publish queue's oldest message waited more than `PUBLISH_AGE_SECONDS`: the public pages
  are that much behind;
- SES's 24-hour quota or SNS's SMS spend limit refused a send (`SendLimitReached`): email or
  SMS is held, its messages kept, until the limit lets them go (docs/operations.md).
"""

from chalice.utils import to_cfn_resource_name

from chalicelib.notify import delivery_metrics

TOPIC = "AlarmTopic"
PARAMETERS = {
    "AlarmEmail": {
        "Type": "String",
        "AllowedPattern": "^[^@\\s]+@[^@\\s]+$",
        "Description": "Who receives the alarms (dead letters, function errors and throttles, "
        "failed deliveries, publish delay): SNS asks this address to confirm first.",
    }
}
FAILED_SHARE = 0.1
SHARE_PERIOD_SECONDS = 300
# A publish normally leaves the queue within seconds (docs/published-site.md).
PUBLISH_AGE_SECONDS = 300
PUBLISH_QUEUE = "publish"
# What holds each channel when reached (chalicelib/notify/pacing.py).
LIMITS = {
    "email": "SES's 24-hour sending quota (or SES paused the account's sending)",
    "sms": "SNS's monthly SMS spend limit",
}


def _alarm(name: str, description: str, **properties) -> dict:
    return {
        "Type": "AWS::CloudWatch::Alarm",
        "Properties": {
            "AlarmName": name,
            "AlarmDescription": description,
            "AlarmActions": [{"Ref": TOPIC}],
            "OKActions": [{"Ref": TOPIC}],
            "EvaluationPeriods": 1,
            "ComparisonOperator": "GreaterThanThreshold",
            # No data is no trouble: an idle function, an empty queue, no deliveries.
            "TreatMissingData": "notBreaching",
            **properties,
        },
    }


def _metric(namespace: str, name: str, dimensions: dict, statistic: str, period: int) -> dict:
    return {
        "Namespace": namespace,
        "MetricName": name,
        "Dimensions": [{"Name": key, "Value": value} for key, value in dimensions.items()],
        "Statistic": statistic,
        "Period": period,
    }


def dead_letter_alarms(prefix: str, dead_letter_queues: list[str]) -> dict[str, dict]:
    """`dead_letter_queues`: their logical ids."""
    alarms = {}
    for logical_id in dead_letter_queues:
        queue = {"QueueName": {"Fn::GetAtt": [logical_id, "QueueName"]}}
        short = logical_id.removesuffix("DeadLetterQueue")
        alarms[f"{short}DeadLettersAlarm"] = _alarm(
            f"{prefix}-{short}-dead-letters",
            f"Messages of the {short} queue failed their receives and wait in its "
            "dead-letter queue: see the logs, then `python -m chalicelib.admin redrive`.",
            Threshold=0,
            **_metric("AWS/SQS", "ApproximateNumberOfMessagesVisible", queue, "Maximum", 60),
        )
    return alarms


def function_alarms(prefix: str, functions: list[dict]) -> dict[str, dict]:
    """Errors and Throttles of each function of `generate.functions`."""
    alarms = {}
    for function in functions:
        dimensions = {"FunctionName": {"Ref": function["logical_id"]}}
        for metric, what in (("Errors", "raised"), ("Throttles", "was throttled")):
            alarms[f"{function['logical_id']}{metric}Alarm"] = _alarm(
                f"{prefix}-{function['name']}-{metric.lower()}",
                f"The {function['name']} function {what}.",
                Threshold=0,
                **_metric("AWS/Lambda", metric, dimensions, "Sum", 60),
            )
    return alarms


def _count(metric_id: str, name: str, stage: str, channel: str) -> dict:
    return {
        "Id": metric_id,
        "ReturnData": False,
        "MetricStat": {
            "Metric": {
                "Namespace": delivery_metrics.NAMESPACE,
                "MetricName": name,
                "Dimensions": [
                    {"Name": "Stage", "Value": stage},
                    {"Name": "Channel", "Value": channel},
                ],
            },
            "Period": SHARE_PERIOD_SECONDS,
            "Stat": "Sum",
        },
    }


def failed_share_alarms(prefix: str, stage: str) -> dict[str, dict]:
    alarms = {}
    for channel in delivery_metrics.CHANNELS:
        share = {
            "Id": "share",
            "Label": f"failed share of {channel} deliveries",
            "Expression": "FILL(failed, 0) / (FILL(sent, 0) + FILL(failed, 0))",
            "ReturnData": True,
        }
        alarms[f"{to_cfn_resource_name(channel)}FailedShareAlarm"] = _alarm(
            f"{prefix}-{channel}-failed-share",
            f"More than {FAILED_SHARE:.0%} of {channel} deliveries failed in "
            f"{SHARE_PERIOD_SECONDS // 60} minutes.",
            Threshold=FAILED_SHARE,
            Metrics=[
                _count("sent", delivery_metrics.SENT, stage, channel),
                _count("failed", delivery_metrics.FAILED, stage, channel),
                share,
            ],
        )
    return alarms


def limit_reached_alarms(prefix: str, stage: str) -> dict[str, dict]:
    """A channel held by its account limit: what it sends waits (nothing is lost, nobody is
    quarantined) until the limit is raised or the window frees room."""
    alarms = {}
    for channel in delivery_metrics.LIMITED_CHANNELS:
        dimensions = {"Stage": stage, "Channel": channel}
        alarms[f"{to_cfn_resource_name(channel)}LimitReachedAlarm"] = _alarm(
            f"{prefix}-{channel}-limit-reached",
            f"{LIMITS[channel]} refused a send: {channel} is held and its notifications "
            "wait (nobody is quarantined). Raise the limit; the channel resumes by itself.",
            Threshold=0,
            **_metric(
                delivery_metrics.NAMESPACE,
                delivery_metrics.LIMIT_REACHED,
                dimensions,
                "Sum",
                SHARE_PERIOD_SECONDS,
            ),
        )
    return alarms


def publish_age_alarm(prefix: str, publish_queue: str) -> dict[str, dict]:
    queue = {"QueueName": {"Fn::GetAtt": [publish_queue, "QueueName"]}}
    return {
        "PublishDelayAlarm": _alarm(
            f"{prefix}-publish-delay",
            f"A page's publish has waited more than {PUBLISH_AGE_SECONDS} s: the public "
            "pages are behind.",
            Threshold=PUBLISH_AGE_SECONDS,
            **_metric("AWS/SQS", "ApproximateAgeOfOldestMessage", queue, "Maximum", 60),
        )
    }


def resources(
    prefix: str, stage: str, functions: list[dict], dead_letter_queues: list[str], publish: str
) -> dict[str, dict]:
    """`prefix`: `<app>-<stage>`; `publish`: the publish queue's logical id."""
    return {
        TOPIC: {
            "Type": "AWS::SNS::Topic",
            "Properties": {
                "TopicName": f"{prefix}-alarms",
                "Subscription": [{"Protocol": "email", "Endpoint": {"Ref": "AlarmEmail"}}],
            },
        },
        **dead_letter_alarms(prefix, dead_letter_queues),
        **function_alarms(prefix, functions),
        **failed_share_alarms(prefix, stage),
        **limit_reached_alarms(prefix, stage),
        **publish_age_alarm(prefix, publish),
    }
