"""Drives genmedia's Replicate dialect with the official `replicate` Python client, unmodified: only the base URL and
token are set, and the HTTPS front's test CA is trusted through the client's own `transport` option.

Reads the settings as JSON on stdin ({"baseUrl", "apiKey", "caPath", ...}) and runs one scenario (the first
argument), printing what the client returned or raised as JSON:
- run: replicate.run of a model by name (answered within the wait), of a model by name:version, and of a model
  whose job outlasts the wait (answered `starting`, then polled); each output read through the client's FileOutput
  (which sends the API key) and fetched as most apps do, with a plain GET and no credential (urllib); settings
  {"model", "slowModel"}
- create-webhook: predictions.create with a webhook and webhook_events_filter=["completed"]; settings {"model", "webhookUrl"}
- validate-webhook: the client's validate_webhook on a delivery, with the secret from webhooks.default.secret(), and
  on the same delivery with a changed body; settings {"delivery": {"headers", "body"}}
- cancel: predictions.create of a model that never starts, then predictions.cancel; settings {"model"}
- deadline: predictions.create of a model that never starts through a client that sends `Cancel-After` on its
  requests (the client's own `headers` option), then predictions.get until the prediction ends; settings
  {"model", "cancelAfter"}
- list: predictions.list followed through every `next`, then back through every `previous`
- errors: an unknown model and an input the model refuses; settings {"model"}

usage: replicate_client.py SCENARIO < settings.json
"""

import json
import ssl
import sys
import time
import urllib.request

import httpx
import replicate
from replicate.exceptions import ReplicateError
from replicate.helpers import FileOutput
from replicate.webhook import InvalidSignatureError

PNG = b"\x89PNG\r\n\x1a\n"


def client(settings, headers=None):
    trusted = ssl.create_default_context(cafile=settings["caPath"])
    return replicate.Client(
        api_token=settings["apiKey"], base_url=settings["baseUrl"], transport=httpx.HTTPTransport(verify=trusted), headers=dict(headers or {})
    )


def plain_get(url, trusted):
    with urllib.request.urlopen(url, context=trusted) as response:
        return {"status": response.status, "head": response.read()[:8].hex()}


def read_outputs(output, trusted):
    items = output if isinstance(output, list) else [output]
    return [{"fileOutput": isinstance(item, FileOutput), "url": str(item), "head": item.read()[:8].hex(), "plainGet": plain_get(str(item), trusted)} for item in items]


def run(settings):
    sdk = client(settings)
    trusted = ssl.create_default_context(cafile=settings["caPath"])
    started = time.monotonic()
    by_name = sdk.run(settings["model"], input={"prompt": "a lighthouse at dusk"})
    by_name_seconds = time.monotonic() - started
    model = sdk.models.get(settings["model"])
    version = model.latest_version
    by_version = sdk.run(f"{settings['model']}:{version.id}", input={"prompt": "a harbour at dawn"})
    started = time.monotonic()
    slow = sdk.run(settings["slowModel"], input={"prompt": "waves against a pier"})
    slow_seconds = time.monotonic() - started
    return {
        "byName": read_outputs(by_name, trusted),
        "byNameSeconds": by_name_seconds,
        "model": {"owner": model.owner, "name": model.name, "visibility": model.visibility, "runCount": model.run_count, "url": model.url},
        "version": {"id": version.id, "cogVersion": version.cog_version, "inputRequired": version.openapi_schema["components"]["schemas"]["Input"].get("required")},
        "byVersion": read_outputs(by_version, trusted),
        "slow": read_outputs(slow, trusted),
        "slowSeconds": slow_seconds,
    }


def create_webhook(settings):
    prediction = client(settings).predictions.create(
        model=settings["model"],
        input={"prompt": "a lighthouse that reports back"},
        webhook=settings["webhookUrl"],
        webhook_events_filter=["completed"],
    )
    return {"id": prediction.id, "status": prediction.status, "model": prediction.model, "version": prediction.version}


def validate_webhook(settings):
    sdk = client(settings)
    secret = sdk.webhooks.default.secret()
    delivery = settings["delivery"]
    sdk.webhooks.validate(headers=delivery["headers"], body=delivery["body"], secret=secret)
    try:
        sdk.webhooks.validate(headers=delivery["headers"], body=delivery["body"].replace("succeeded", "failed"), secret=secret)
        changed_body_refused = False
    except InvalidSignatureError:
        changed_body_refused = True
    return {"valid": True, "changedBodyRefused": changed_body_refused, "secretPrefix": secret.key[:6], "status": json.loads(delivery["body"])["status"]}


def cancel(settings):
    sdk = client(settings)
    prediction = sdk.predictions.create(model=settings["model"], input={"prompt": "never drawn"})
    cancelled = sdk.predictions.cancel(prediction.id)
    again = sdk.predictions.get(prediction.id)
    return {"id": prediction.id, "created": prediction.status, "cancelled": cancelled.status, "read": again.status}


def deadline(settings):
    sdk = client(settings, {"Cancel-After": settings["cancelAfter"]})
    prediction = sdk.predictions.create(model=settings["model"], input={"prompt": "needed soon"})
    created = prediction.status
    for _ in range(100):
        prediction.reload()
        if prediction.status in ("succeeded", "failed", "canceled"):
            break
        time.sleep(0.2)
    return {"id": prediction.id, "created": created, "ended": prediction.status, "error": prediction.error}


def list_predictions(settings):
    sdk = client(settings)
    pages = [sdk.predictions.list()]
    while pages[-1].next:
        pages.append(sdk.predictions.list(pages[-1].next))
    back = [pages[-1]]
    while back[-1].previous:
        back.append(sdk.predictions.list(back[-1].previous))
    return {
        "forward": [[p.id for p in page.results] for page in pages],
        "backward": [[p.id for p in page.results] for page in back],
        "firstPrevious": pages[0].previous,
        "lastNext": pages[-1].next,
        "nextUrl": pages[0].next,
    }


def errors(settings):
    sdk = client(settings)
    found = {}
    for name, call in {
        "unknownModel": lambda: sdk.run("nobody/no-such-model", input={"prompt": "x"}),
        "invalidInput": lambda: sdk.predictions.create(model=settings["model"], input={"prompt": 42}),
    }.items():
        try:
            call()
            found[name] = None
        except ReplicateError as error:
            found[name] = {"class": type(error).__name__, "status": error.status, "title": error.title, "detail": error.detail}
    return found


SCENARIOS = {
    "run": run,
    "create-webhook": create_webhook,
    "validate-webhook": validate_webhook,
    "cancel": cancel,
    "deadline": deadline,
    "list": list_predictions,
    "errors": errors,
}

if __name__ == "__main__":
    print(json.dumps(SCENARIOS[sys.argv[1]](json.load(sys.stdin))))
