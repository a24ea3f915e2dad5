"""A small client for Baton's HTTP API (/api/v1, docs/api.md), on httpx.

    client = BatonClient("http://127.0.0.1:8080", token=os.environ["BATON_TOKEN"])
    run = client.submit({"nodes": {"add": {"procedure": "baton.add", "input": {"values": [1, 2]}}}})
    result = client.wait(run["id"])          # {"run": {...}, "outputs": {"add": 3}, ...}

Every refusal of the API raises BatonError with the API's `code` ("invalid", "not_found",
"conflict", ...), its one-line `message`, the HTTP `status` and the `details`.
"""

from __future__ import annotations

import time
from typing import Any, Iterator, Optional

import httpx

__all__ = ["BatonClient", "BatonError", "ENDED"]

#: The statuses a run does not leave.
ENDED = frozenset({"succeeded", "failed", "cancelled"})


class BatonError(Exception):
    """A refusal from the API: `{"error": {"code", "message", "details"}}` with its HTTP status."""

    def __init__(self, status: int, code: str, message: str, details: Optional[list] = None):
        super().__init__(f"{code} ({status}): {message}")
        self.status = status
        self.code = code
        self.message = message
        self.details = details or []


class BatonClient:
    """One keep-alive connection pool to a `baton server`, with a bearer token."""

    def __init__(self, base_url: str, token: str, timeout: float = 90.0):
        self._http = httpx.Client(
            base_url=base_url.rstrip("/") + "/api/v1",
            headers={"Authorization": f"Bearer {token}", "Accept": "application/json"},
            timeout=timeout,
        )

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> "BatonClient":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # -- runs ---------------------------------------------------------------------------------

    def submit(
        self,
        graph: Any,
        input: Optional[dict] = None,
        name: Optional[str] = None,
        idempotency_key: Optional[str] = None,
        wait: Optional[str] = None,
    ) -> dict:
        """POST /runs: `graph` is a dict or a JSON/YAML file's text. Returns `{"id", "status", ...}`;
        with `wait` ("30s"), the answer comes when the run ends or the wait runs out."""
        body: dict = {"graph": graph}
        if input is not None:
            body["input"] = input
        if name is not None:
            body["name"] = name
        headers = {"Idempotency-Key": idempotency_key} if idempotency_key else {}
        return self._call("POST", "/runs", json=body, headers=headers, params=_wait(wait))

    def run(self, run_id: str, wait: Optional[str] = None) -> dict:
        """GET /runs/{id}: `{"run", "progress", "running", "unserved", "outputs"}`."""
        return self._call("GET", f"/runs/{run_id}", params=_wait(wait))

    def wait(self, run_id: str, timeout: float = 300.0) -> dict:
        """Long-polls GET /runs/{id}?wait= until the run has ended; raises TimeoutError after `timeout` s."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            answer = self.run(run_id, wait=f"{max(1, min(30, int(left)))}s")
            if answer["run"]["status"] in ENDED:
                return answer
            if time.monotonic() >= deadline:
                raise TimeoutError(f"run {run_id} still {answer['run']['status']} after {timeout:g}s")

    def events(self, run_id: str, after: int = 0, wait: str = "25s") -> Iterator[dict]:
        """Follows GET /runs/{id}/events?after=&wait=: yields each event once, oldest first, and stops
        once the run has ended and its log is drained."""
        while True:
            page = self._call("GET", f"/runs/{run_id}/events", params={"after": after, "wait": wait})
            for event in page["events"]:
                yield event
            if page["last_id"] is not None:
                after = page["last_id"]
            if not page["events"] and page["run_status"] in ENDED:
                return

    def signal(self, run_id: str, node: str, value: Any = None, wait: Optional[str] = None) -> dict:
        """POST /runs/{id}/signals: sends `value` to the signal node `node`."""
        return self._call("POST", f"/runs/{run_id}/signals", json={"node": node, "value": value}, params=_wait(wait))

    def cancel(self, run_id: str, reason: Optional[str] = None, wait: Optional[str] = None) -> dict:
        """POST /runs/{id}/cancel."""
        body = {"reason": reason} if reason is not None else {}
        return self._call("POST", f"/runs/{run_id}/cancel", json=body, params=_wait(wait))

    def whoami(self) -> dict:
        """GET /whoami: the token's name and scopes."""
        return self._call("GET", "/whoami")

    # -- the wire -----------------------------------------------------------------------------

    def _call(self, method: str, path: str, **kwargs: Any) -> dict:
        response = self._http.request(method, path, **kwargs)
        if response.is_success:
            return response.json()
        try:
            error = response.json()["error"]
            raise BatonError(response.status_code, error["code"], error["message"], error.get("details"))
        except (ValueError, KeyError, TypeError):
            text = response.text.strip().splitlines()[0] if response.text.strip() else response.reason_phrase
            raise BatonError(response.status_code, "http_error", f"{method} {path}: {text}") from None


def _wait(wait: Optional[str]) -> dict:
    return {"wait": wait} if wait else {}
