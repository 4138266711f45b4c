"""Which webhook addresses are public (outside the local stage only those are called)."""

import pytest

from chalicelib.notify.webhook import is_public_address


@pytest.mark.parametrize(
    "address",
    [
        "100.64.0.1",  # shared address space (carrier-grade NAT)
        "100.127.255.254",
        "2002:a9fe:a9fe::",  # 6to4 of 169.254.169.254, the metadata service
        "2002:7f00:1::",  # 6to4 of 127.0.0.1
        "2002:0a00:0001::1",  # 6to4 of 10.0.0.1
        "::ffff:169.254.169.254",  # IPv4-mapped
        "64:ff9b::a9fe:a9fe",  # NAT64 of 169.254.169.254
        "169.254.169.254",
        "fd00:ec2::254",
        "127.0.0.1",
        "10.1.2.3",
        "192.168.0.1",
        "::1",
        "fe80::1",
        "224.0.0.1",
        "0.0.0.0",
        "::127.0.0.1",  # IPv4-compatible (::/96)
        "::7f00:1",
        "::8.8.8.8",  # ::/96 is refused whatever it carries
        "192.0.0.8",  # IETF protocol assignments (global to Python 3.11)
    ],
)
def test_internal_addresses_are_not_public(address):
    assert not is_public_address(address)


@pytest.mark.parametrize(
    "address", ["8.8.8.8", "2606:4700:4700::1111", "::ffff:8.8.8.8", "2002:0808:0808::"]
)
def test_global_addresses_are_public(address):
    assert is_public_address(address)


def test_the_local_stacks_concurrent_sends_to_one_host_share_a_pool_without_dropping(
    caplog, monkeypatch
):
    """The local stack sends from two deliveries of a queue at once in one process, each up
    to `PER_HOST` to a host: their connections go back to the pool kept, none is closed as
    the pool is full (urllib3 warned at each)."""
    import logging
    from concurrent.futures import ThreadPoolExecutor

    from chalicelib.local.events import INSTANCES_PER_QUEUE
    from chalicelib.notify import webhook
    from tests.webhook_sink import WebhookSink

    monkeypatch.setenv("ALLOW_PRIVATE_TARGETS", "1")
    senders = INSTANCES_PER_QUEUE * webhook.PER_HOST
    with WebhookSink(delay=0.05) as sink, caplog.at_level(logging.WARNING):
        with ThreadPoolExecutor(senders) as pool:
            sent = list(
                pool.map(lambda n: webhook.post_json(f"{sink.url}/{n}", b"{}", {}), range(senders))
            )
    assert all(sent) and len(sink.received) == senders
    assert not [r for r in caplog.records if "pool is full" in r.getMessage()]
