"""The contract's refusals from a real server, as the package's exceptions with the
contract's body: 401 (bad key), 402 (no credits, with topupUrl), 403 (allowlist, with
sourceIp). None is charged; each carries the request id."""

from __future__ import annotations

import pytest
from conftest import Deployment, Server

from forumdex import Client, Forbidden, PaymentRequired, Unauthorized


def test_a_bad_key_is_unauthorized(server: Server) -> None:
    with Client(api_key="fdx_live_" + "x" * 38, base_url=server.base_url) as client:
        with pytest.raises(Unauthorized) as raised:
            client.search("bitcoin")
    error = raised.value
    assert error.status == 401 and error.request_id and error.credits_charged == 0
    assert error.message


def test_no_credits_is_payment_required_with_the_topup_url(
    deployment: Deployment, server: Server
) -> None:
    key = deployment.key(credits=1)
    with Client(api_key=key, base_url=server.base_url) as client:
        first = client.search("bitcoin")
        assert first.credits_remaining == 0
        with pytest.raises(PaymentRequired) as raised:
            client.search("bitcoin")
        assert client.credits_spent == 1
    error = raised.value
    assert error.status == 402 and error.request_id and error.credits_charged == 0
    assert error.topup_url and error.topup_url.endswith("/dashboard/billing")


def test_an_address_outside_the_allowlist_is_forbidden_with_the_source_ip(
    deployment: Deployment, server: Server
) -> None:
    key = deployment.key(allow=["192.0.2.1", "2001:db8::/32"])
    with Client(api_key=key, base_url=server.base_url) as client:
        with pytest.raises(Forbidden) as raised:
            client.topic(1)
    error = raised.value
    assert error.status == 403 and error.request_id and error.credits_charged == 0
    assert error.source_ip == "127.0.0.1"
