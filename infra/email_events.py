"""SES's bounces and complaints, for `infra/generate.py`: a configuration set every email is
sent with (`chalicelib/notify/email.py`), whose bounce and complaint events go to an SNS topic
that triggers the app's `read_email_events` function (`chalicelib/notify/ses_events.py`).

SES suspends an account whose bounce or complaint rate stays high: the function quarantines or
unsubscribes the addresses that bounce or complain, so they are not written to again.
"""

from chalicelib.notify import ses_events

CONFIGURATION_SET = "EmailConfigurationSet"
EVENT_DESTINATION = "EmailEventDestination"
TOPIC = "EmailEventsTopic"
TOPIC_POLICY = "EmailEventsTopicPolicy"
# The app's function the topic triggers (`app.py`), and where it finds the set's name.
FUNCTION = "read_email_events"
CONFIGURATION_SET_VARIABLE = "SES_CONFIGURATION_SET"
EVENT_TYPES = ["bounce", "complaint"]


def configuration_set_name(prefix: str) -> str:
    return f"{prefix}-email"


def topic_name(prefix: str) -> str:
    """As `config.topic_name(ses_events.TOPIC)` names it for the stage of `prefix`."""
    return f"{prefix}-{ses_events.TOPIC}"


def resources(prefix: str) -> dict[str, dict]:
    """`prefix`: `<app>-<stage>`."""
    topic_arn = {"Ref": TOPIC}  # a topic's Ref is its ARN
    return {
        CONFIGURATION_SET: {
            "Type": "AWS::SES::ConfigurationSet",
            "Properties": {"Name": configuration_set_name(prefix)},
        },
        EVENT_DESTINATION: {
            "Type": "AWS::SES::ConfigurationSetEventDestination",
            "Properties": {
                "ConfigurationSetName": {"Ref": CONFIGURATION_SET},
                "EventDestination": {
                    "Name": "bounces-and-complaints",
                    "Enabled": True,
                    "MatchingEventTypes": EVENT_TYPES,
                    "SnsDestination": {"TopicARN": topic_arn},
                },
            },
        },
        TOPIC: {"Type": "AWS::SNS::Topic", "Properties": {"TopicName": topic_name(prefix)}},
        TOPIC_POLICY: {
            "Type": "AWS::SNS::TopicPolicy",
            "Properties": {
                "Topics": [topic_arn],
                "PolicyDocument": {
                    "Version": "2012-10-17",
                    "Statement": [
                        {
                            "Sid": "SesPublishesThisAccountsEvents",
                            "Effect": "Allow",
                            "Principal": {"Service": "ses.amazonaws.com"},
                            "Action": "sns:Publish",
                            "Resource": topic_arn,
                            "Condition": {
                                "StringEquals": {"AWS:SourceAccount": {"Ref": "AWS::AccountId"}}
                            },
                        }
                    ],
                },
            },
        },
    }


def configuration_set_arn() -> dict:
    """What `ses:SendRawEmail` with the set also needs permission on."""
    return {
        "Fn::Sub": "arn:${AWS::Partition}:ses:${AWS::Region}:${AWS::AccountId}"
        f":configuration-set/${{{CONFIGURATION_SET}}}"
    }


def function_overrides(logical_id: str) -> dict:
    """The topic Chalice names by ARN only (an `Fn::Sub` of its name), given by reference
    instead, so the subscription waits for the topic. The merge replaces the `Fn::Sub`'s
    string, key by key: a `Ref` beside it would be an invalid mix of both. Chalice names the
    event `<function>SnsSubscription`."""
    topic = {"Fn::Sub": f"${{{TOPIC}}}"}  # a topic's Ref is its ARN
    return {"Events": {logical_id + "SnsSubscription": {"Properties": {"Topic": topic}}}}
