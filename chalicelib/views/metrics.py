"""Metrics as the API and the console show them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from chalicelib import clock, schemas

if TYPE_CHECKING:
    from chalicelib.store.metrics import Metric


def metric_out(metric: Metric) -> schemas.MetricOut:
    return schemas.MetricOut(
        id=metric.id,
        metrics_provider_id=metric.metrics_provider_id,
        metric_identifier=metric.metric_identifier,
        name=metric.name,
        display=bool(metric.display),
        tooltip_description=metric.tooltip_description,
        backfilled=bool(metric.backfilled),
        backfill_percentage=metric.backfill_percentage or 0,
        y_axis_min=metric.y_axis_min,
        y_axis_max=metric.y_axis_max,
        y_axis_hidden=bool(metric.y_axis_hidden),
        suffix=metric.suffix or "",
        decimal_places=int(metric.decimal_places or 0),
        most_recent_data_at=clock.iso(metric.most_recent_data_at),
        last_fetched_at=clock.iso(metric.last_fetched_at),
        created_at=clock.iso(metric.created_at),
        updated_at=clock.iso(metric.updated_at),
        reference_name=metric.name,
    )
