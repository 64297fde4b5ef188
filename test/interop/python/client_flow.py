"""A Python program using the client openapi-python-client generated from the API's /openapi.json.

It estimates a job, submits it twice with one Idempotency-Key, follows the job's events as JSON pages to the end,
cancels a job that never starts, then presigns and uploads a file and reads it back through its fileUrl, and checks
that file's Content Credentials as a multipart form (alone, then with a sidecar that is no manifest). It prints one
JSON object of what it saw; the calling test checks it against the database.

usage: client_flow.py <dir holding the generated genmedia_client package>   (settings as JSON on stdin)
"""

import builtins
import json
import sys
import time

import httpx

sys.path.insert(0, sys.argv[1])

from genmedia_client import AuthenticatedClient  # noqa: E402
from genmedia_client.api.jobs import cancel_job, estimate_job, list_job_events, submit_job  # noqa: E402
import genmedia_client.types  # noqa: E402

# openapi-python-client 0.29 annotates a required body of several content types (the verify endpoint's raw file or
# multipart form) with `Unset` without importing it (its issue 1451); the name is lent until the generator imports it.
builtins.Unset = genmedia_client.types.Unset
from genmedia_client.api.provenance import verify_provenance  # noqa: E402
from genmedia_client.api.uploads import get_upload, presign_upload  # noqa: E402
from genmedia_client.types import File  # noqa: E402
from genmedia_client.models import (  # noqa: E402
    CancelJobResponse,
    CostEstimate,
    Error,
    ProvenanceCheckForm,
    ProvenanceVerification,
    EstimateRequest,
    EstimateRequestInput,
    JobEventPage,
    PresignUploadRequest,
    PresignUploadRequestContentType,
    PresignUploadResponse,
    SubmitJobRequest,
    SubmitJobRequestInput,
    SubmitJobResponse,
    UploadStatusResponse,
)

TERMINAL_EVENTS = {"job.completed", "job.failed", "job.cancelled"}


def expect_type(value, expected):
    if not isinstance(value, expected):
        raise SystemExit(f"expected a {expected.__name__}, got {value!r}")
    return value


def estimate(client, model, inputs):
    body = EstimateRequest(model=model, input_=EstimateRequestInput.from_dict(inputs))
    result = expect_type(estimate_job.sync(client=client, body=body), CostEstimate)
    return {"estimatedCostMicroCents": result.estimated_cost_micro_cents, "breakdown": [item.component for item in result.breakdown]}


def submit(client, model, inputs, idempotency_key):
    body = SubmitJobRequest(model=model, input_=SubmitJobRequestInput.from_dict(inputs))
    answer = submit_job.sync_detailed(client=client, body=body, idempotency_key=idempotency_key)
    if answer.status_code != 201:
        raise SystemExit(f"submit answered {answer.status_code}: {answer.content!r}")
    job = expect_type(answer.parsed, SubmitJobResponse)
    return {
        "jobId": job.job_id,
        "status": str(job.status),
        "costMicroCents": job.cost_micro_cents,
        "location": answer.headers.get("location"),
        "idempotentReplayed": answer.headers.get("idempotent-replayed"),
    }


def follow_events(client, job_id, timeout_seconds=60):
    """Pages through the job's events (JSON), from the first, until its terminal event."""
    since = "0"
    events = []
    deadline = time.monotonic() + timeout_seconds
    while time.monotonic() < deadline:
        page = expect_type(list_job_events.sync(job_id, client=client, since=since, limit=2), JobEventPage)
        events.extend({"sequence": e.sequence, "type": str(e.type_), "status": str(e.status), "progress": e.progress} for e in page.events)
        since = page.next_since
        if events and events[-1]["type"] in TERMINAL_EVENTS:
            return events
        if not page.has_more:
            time.sleep(0.2)
    raise SystemExit(f"no terminal event for {job_id} within {timeout_seconds} s: {events}")


def cancel(client, job_id):
    result = expect_type(cancel_job.sync(job_id, client=client), CancelJobResponse)
    return {"jobId": result.job_id, "status": str(result.status), "refundedMicroCents": result.refunded_micro_cents}


def upload(client, content, timeout_seconds=20):
    body = PresignUploadRequest(filename="scene.png", content_type=PresignUploadRequestContentType.IMAGEPNG, size=len(content))
    presigned = expect_type(presign_upload.sync(client=client, body=body), PresignUploadResponse).data
    put = httpx.put(presigned.upload_url, content=content, headers={"content-type": "image/png"})
    put.raise_for_status()
    deadline = time.monotonic() + timeout_seconds
    while True:
        status = expect_type(get_upload.sync(presigned.file_id, client=client), UploadStatusResponse).data
        if str(status.status) == "uploaded" or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    # The fileUrl needs no key: it redirects to the bytes in storage.
    read_back = httpx.get(presigned.file_url, follow_redirects=True)
    return {
        "fileId": presigned.file_id,
        "maxSize": presigned.max_size,
        "status": str(status.status),
        "size": status.size,
        "readBackStatus": read_back.status_code,
        "readBackSameBytes": read_back.content == content,
    }


def check_provenance(client, content):
    """The file checked as a multipart form: alone, then with its own bytes as a (not a manifest) sidecar."""
    alone = verify_provenance.sync_detailed(client=client, body=ProvenanceCheckForm(file=File(payload=content, file_name="scene.png")))
    checked = expect_type(alone.parsed, ProvenanceVerification)
    refused = verify_provenance.sync_detailed(
        client=client,
        body=ProvenanceCheckForm(file=File(payload=content, file_name="scene.png"), manifest=File(payload=content, file_name="scene.c2pa")),
    )
    error = expect_type(refused.parsed, Error)
    return {
        "status": alone.status_code,
        "hasManifest": checked.has_manifest,
        "refusedStatus": refused.status_code,
        "refusedCode": str(error.error.code),
    }


def main():
    settings = json.load(sys.stdin)
    client = AuthenticatedClient(base_url=settings["baseUrl"], token=settings["apiKey"], raise_on_unexpected_status=True)
    with client:
        model, inputs = settings["model"], settings["input"]
        result = {"estimate": estimate(client, model, inputs)}
        first = submit(client, model, inputs, settings["idempotencyKey"])
        result["submitted"] = first
        result["resubmitted"] = submit(client, model, inputs, settings["idempotencyKey"])
        result["events"] = follow_events(client, first["jobId"])
        pending = submit(client, settings["neverStartingModel"], {"prompt": "a job that waits"}, settings["idempotencyKey"] + "-pending")
        result["pending"] = pending
        result["cancelled"] = cancel(client, pending["jobId"])
        with open(settings["uploadFile"], "rb") as file:
            content = file.read()
            result["upload"] = upload(client, content)
            result["provenance"] = check_provenance(client, content)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
