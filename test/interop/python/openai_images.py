"""Drives genmedia's OpenAI dialect with the official `openai` Python SDK, unmodified: only base_url and api_key set.

Reads the settings as JSON on stdin and runs one scenario (the first argument), printing what the SDK returned or
raised as JSON:
- generate: images.generate with n=2 as URLs (each fetched) and as b64_json, the second with an Idempotency-Key sent
  twice; settings {"baseUrl", "apiKey", "urlModel", "b64Model", "idempotencyKey"}
- models: models.list; settings {"baseUrl", "apiKey"}
- errors: an unknown model, a size the model cannot make, a request of an account without credits and one of an
  account over its daily spend limit; settings {"baseUrl", "apiKey", "poorKey", "cappedKey", "model"}
- retry: a request refused with 429 (the account's one concurrent job is taken) that the SDK retries; on the first
  429 the blocking job is cancelled through genmedia's own API; settings {"baseUrl", "apiKey", "model", "blockingJobUrl"}
- timeout: a request whose job never finishes within the wait, with the SDK's default retries; settings
  {"baseUrl", "apiKey", "model"}

usage: openai_images.py SCENARIO < settings.json
"""

import base64
import json
import sys

import httpx
import openai

PNG = b"\x89PNG\r\n\x1a\n"


def client(settings, api_key=None, **options):
    return openai.OpenAI(base_url=settings["baseUrl"], api_key=api_key or settings["apiKey"], **options)


def generate(settings):
    sdk = client(settings)
    by_url = sdk.images.generate(model=settings["urlModel"], prompt="a lighthouse at dusk", n=2, response_format="url", size="1024x1024")
    fetched = [httpx.get(image.url) for image in by_url.data]
    key = {"Idempotency-Key": settings["idempotencyKey"]}
    inline = [
        sdk.images.generate(model=settings["b64Model"], prompt="a harbour at dawn", n=2, response_format="b64_json", extra_headers=key)
        for _ in range(2)
    ]
    return {
        "url": {
            "created": by_url.created,
            "count": len(by_url.data),
            "fetched": [{"status": r.status_code, "png": r.content.startswith(PNG)} for r in fetched],
        },
        "b64": [
            {"count": len(answer.data), "png": [base64.b64decode(image.b64_json).startswith(PNG) for image in answer.data]}
            for answer in inline
        ],
        "sameImagesOnRetry": [i.b64_json for i in inline[0].data] == [i.b64_json for i in inline[1].data],
    }


def models(settings):
    return {"ids": [model.id for model in client(settings).models.list()]}


def raised(call):
    try:
        call()
    except openai.APIStatusError as error:
        return {"class": type(error).__name__, "status": error.status_code, "body": error.body, "code": error.code, "type": error.type}
    return {"class": None}


def errors(settings):
    sdk = client(settings, max_retries=0)
    poor = client(settings, api_key=settings["poorKey"], max_retries=0)
    capped = client(settings, api_key=settings["cappedKey"], max_retries=0)
    return {
        "overSpendLimit": raised(lambda: capped.images.generate(model=settings["model"], prompt="anything")),
        "unknownModel": raised(lambda: sdk.images.generate(model="no-such-model", prompt="anything")),
        "unsupportedSize": raised(lambda: sdk.images.generate(model=settings["model"], prompt="anything", size="4096x4096")),
        "noCredits": raised(lambda: poor.images.generate(model=settings["model"], prompt="anything")),
    }


def retry(settings):
    statuses = []

    def on_response(response):
        statuses.append(response.status_code)
        if response.status_code == 429 and statuses.count(429) == 1:
            cancelled = httpx.post(settings["blockingJobUrl"], headers={"Authorization": f"Bearer {settings['apiKey']}"})
            cancelled.raise_for_status()

    http_client = httpx.Client(event_hooks={"response": [on_response]}, timeout=120)
    sdk = client(settings, http_client=http_client)
    answer = sdk.images.generate(model=settings["model"], prompt="a lighthouse, once the queue clears")
    return {"statuses": statuses, "count": len(answer.data)}


def timeout(settings):
    statuses = []
    http_client = httpx.Client(event_hooks={"response": [lambda response: statuses.append(response.status_code)]}, timeout=120)
    sdk = client(settings, http_client=http_client)
    outcome = raised(lambda: sdk.images.generate(model=settings["model"], prompt="a lighthouse nobody draws"))
    return {**outcome, "statuses": statuses}


SCENARIOS = {"generate": generate, "models": models, "errors": errors, "retry": retry, "timeout": timeout}


def main():
    settings = json.load(sys.stdin)
    print(json.dumps(SCENARIOS[sys.argv[1]](settings)))


if __name__ == "__main__":
    main()
