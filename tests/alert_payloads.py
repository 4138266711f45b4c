"""Alert payloads as monitoring documents them, firing and then resolved, for the tests of the
alert integrations (issue 34).

- Alertmanager's webhook payload, version 4: the sample of the `alertmanager-webhook-types`
  crate (https://docs.rs/crate/alertmanager-webhook-types/latest/source/assets/sample-v4-payload.json),
  in the shape Alertmanager's configuration documentation gives for `webhook_config`
  (https://prometheus.io/docs/alerting/latest/configuration/#webhook_config).
- Grafana alerting's webhook contact point: the example of Grafana's documentation
  (https://grafana.com/docs/grafana/latest/alerting/configure-notifications/manage-contact-points/integrations/webhook-notifier/).

Each `..._resolved` is the same alerts as Alertmanager and Grafana send them once resolved:
`status` "resolved" and an `endsAt`.
"""

import copy

ALERTMANAGER_FIRING = {
    "receiver": "sms",
    "status": "firing",
    "alerts": [
        {
            "status": "firing",
            "labels": {
                "alertname": "ProbeFailure",
                "instance": "https://server.example.org",
                "job": "http_checks",
                "monitor": "master",
                "severity": "critical",
            },
            "annotations": {
                "description": "Instance https://server.example.org has been down for over 5m. "
                "Job: http_checks",
                "summary": "BlackBox Probe Failure: https://server.example.org",
            },
            "startsAt": "2023-02-06T13:08:45.828Z",
            "endsAt": "0001-01-01T00:00:00Z",
            "generatorURL": "http://prometheus.example.org:9090/graph?g0.expr=probe_success+%3D%3D+0\\u0026g0.tab=1",
            "fingerprint": "1a30ba71cca2921f",
        }
    ],
    "groupLabels": {"alertname": "ProbeFailure"},
    "commonLabels": {
        "alertname": "ProbeFailure",
        "instance": "https://server.example.org",
        "job": "http_checks",
        "monitor": "master",
        "severity": "critical",
    },
    "commonAnnotations": {
        "description": "Instance https://server.example.org has been down for over 5m. "
        "Job: http_checks",
        "summary": "BlackBox Probe Failure: https://server.example.org",
    },
    "externalURL": "http://prometheus.example.org:9093",
    "version": "4",
    "groupKey": '{}/{severity="critical"}:{alertname="ProbeFailure"}',
    "truncatedAlerts": 0,
}
ALERTMANAGER_INSTANCE = "https://server.example.org"

GRAFANA_FIRING = {
    "receiver": "My Super Webhook",
    "status": "firing",
    "orgId": 1,
    "alerts": [
        {
            "status": "firing",
            "labels": {"alertname": "High memory usage", "team": "blue", "zone": "us-1"},
            "annotations": {
                "description": "The system has high memory usage",
                "runbook_url": "https://myrunbook.com/runbook/1234",
                "summary": "This alert was triggered for zone us-1",
            },
            "startsAt": "2021-10-12T09:51:03.157076+02:00",
            "endsAt": "0001-01-01T00:00:00Z",
            "generatorURL": "https://play.grafana.org/alerting/1afz29v7z/edit",
            "fingerprint": "c6eadffa33fcdf37",
            "silenceURL": "https://play.grafana.org/alerting/silence/new?alertmanager=grafana&matchers=alertname%3DT2%2Cteam%3Dblue%2Czone%3Dus-1",
            "dashboardURL": "",
            "panelURL": "",
            "values": {"B": 44.23943737541908, "C": 1},
        },
        {
            "status": "firing",
            "labels": {"alertname": "High CPU usage", "team": "blue", "zone": "eu-1"},
            "annotations": {
                "description": "The system has high CPU usage",
                "runbook_url": "https://myrunbook.com/runbook/1234",
                "summary": "This alert was triggered for zone eu-1",
            },
            "startsAt": "2021-10-12T09:56:03.157076+02:00",
            "endsAt": "0001-01-01T00:00:00Z",
            "generatorURL": "https://play.grafana.org/alerting/d1rdpdv7k/edit",
            "fingerprint": "bc97ff14869b13e3",
            "silenceURL": "https://play.grafana.org/alerting/silence/new?alertmanager=grafana&matchers=alertname%3DT1%2Cteam%3Dblue%2Czone%3Deu-1",
            "dashboardURL": "",
            "panelURL": "",
            "values": {"B": 44.23943737541908, "C": 1},
        },
    ],
    "groupLabels": {},
    "commonLabels": {"team": "blue"},
    "commonAnnotations": {},
    "externalURL": "https://play.grafana.org/",
    "version": "1",
    "groupKey": "{}:{}",
    "truncatedAlerts": 0,
    "title": "[FIRING:2] (blue)",
    "state": "alerting",
    "message": "**Firing**\n\nLabels:\n - alertname = T2\n - team = blue\n - zone = us-1\n",
}


def resolved(firing: dict, ends_at: str = "2023-02-06T13:20:45.828Z") -> dict:
    """The same alerts, resolved, as the sender posts them once they stop firing."""
    payload = copy.deepcopy(firing)
    payload["status"] = "resolved"
    if "state" in payload:
        payload["state"] = "ok"
    for alert in payload["alerts"]:
        alert["status"] = "resolved"
        alert["endsAt"] = ends_at
    return payload


def with_labels(firing: dict, **labels: str) -> dict:
    """The payload with `labels` added to every alert (`component`, `severity`)."""
    payload = copy.deepcopy(firing)
    for alert in payload["alerts"]:
        alert["labels"].update(labels)
    return payload


ALERTMANAGER_RESOLVED = resolved(ALERTMANAGER_FIRING)
GRAFANA_RESOLVED = resolved(GRAFANA_FIRING, "2021-10-12T10:10:03.157076+02:00")
