"""Drives genmedia's OpenAI image edits and videos with the official `openai` Python SDK, unmodified: only base_url
and api_key set.

Reads the settings as JSON on stdin and runs one scenario (the first argument), printing what the SDK returned or
raised as JSON:
- edit: images.edit with one uploaded PNG (sent as `image`, answered as b64_json) and with two (sent as `image[]`,
  answered as URLs, each fetched), then the refusals: a mask the model does not take, a model without an edit
  mapping, and one edit sent twice with an Idempotency-Key; settings {"baseUrl", "apiKey", "model", "otherModel",
  "pngPath", "idempotencyKey"}
- edit-mask: images.edit with an image and a mask (both uploaded PNGs), answered as b64_json; settings
  {"baseUrl", "apiKey", "model", "pngPath", "maskPath"}
- video: videos.create (multipart) then videos.retrieve until it is done, then videos.download_content, a second
  video from an input_reference file (sent twice with an Idempotency-Key), videos.list paged one at a time, and the
  refusals: seconds and a size the model cannot make, an unknown video; settings {"baseUrl", "apiKey", "model",
  "referenceModel", "pngPath", "idempotencyKey"}
- video-models: videos.create of each case (model, prompt, and seconds, size and an input_reference file where the
  case has them), each retrieved until done and downloaded, then a model the dialect cannot map and a size a model
  does not make; settings {"baseUrl", "apiKey", "pngPath", "cases", "refusedModel", "badSize": {"model", "size"}}

usage: openai_media.py SCENARIO < settings.json
"""

import base64
import json
import sys
import time
import warnings

import httpx
import openai

PNG = b"\x89PNG\r\n\x1a\n"

# The SDK marks the Videos API deprecated (OpenAI's own service retires it); its calls are what this drives.
warnings.simplefilter("ignore", DeprecationWarning)


def client(settings, **options):
    return openai.OpenAI(base_url=settings["baseUrl"], api_key=settings["apiKey"], **options)


def raised(call):
    try:
        call()
    except openai.APIStatusError as error:
        return {"class": type(error).__name__, "status": error.status_code, "body": error.body, "code": error.code, "type": error.type}
    return {"class": None}


def edit(settings):
    sdk = client(settings)
    path = settings["pngPath"]
    with open(path, "rb") as one:
        single = sdk.images.edit(model=settings["model"], image=one, prompt="the same scene at night", response_format="b64_json")
    with open(path, "rb") as first, open(path, "rb") as second:
        double = sdk.images.edit(model=settings["model"], image=[first, second], prompt="both of them together", size="1920x1080")
    fetched = [httpx.get(image.url) for image in double.data]
    key = {"Idempotency-Key": settings["idempotencyKey"]}
    keyed = []
    for _ in range(2):
        with open(path, "rb") as image:
            keyed.append(sdk.images.edit(model=settings["model"], image=image, prompt="sent twice", response_format="b64_json", extra_headers=key))
    strict = client(settings, max_retries=0)
    with open(path, "rb") as image, open(path, "rb") as mask:
        with_mask = raised(lambda: strict.images.edit(model=settings["model"], image=image, mask=mask, prompt="only the sky"))
    with open(path, "rb") as image:
        no_edits = raised(lambda: strict.images.edit(model=settings["otherModel"], image=image, prompt="anything"))
    return {
        "single": [base64.b64decode(image.b64_json).startswith(PNG) for image in single.data],
        "double": [{"status": r.status_code, "png": r.content.startswith(PNG)} for r in fetched],
        "withMask": with_mask,
        "noEdits": no_edits,
        "sameImagesOnRetry": [i.b64_json for i in keyed[0].data] == [i.b64_json for i in keyed[1].data],
    }


def edit_mask(settings):
    sdk = client(settings)
    with open(settings["pngPath"], "rb") as image, open(settings["maskPath"], "rb") as mask:
        edited = sdk.images.edit(model=settings["model"], image=image, mask=mask, prompt="a lighthouse in the sky",
                                 size="1024x768", response_format="b64_json")
    return {"images": [image.b64_json for image in edited.data]}


def wait_until_done(sdk, video_id):
    seen = []
    while True:
        video = sdk.videos.retrieve(video_id)
        seen.append(video.status)
        if video.status in ("completed", "failed"):
            return video, seen
        time.sleep(0.2)


def video(settings):
    sdk = client(settings)
    created = sdk.videos.create(model=settings["model"], prompt="waves against a lighthouse", seconds="10", size="360x640")
    done, seen = wait_until_done(sdk, created.id)
    content = sdk.videos.download_content(created.id)
    data = content.read()

    key = {"Idempotency-Key": settings["idempotencyKey"]}
    sent = []
    for _ in range(2):
        with open(settings["pngPath"], "rb") as reference:
            sent.append(sdk.videos.create(model=settings["referenceModel"], prompt="the scene comes alive", input_reference=reference, extra_headers=key))
    referenced = sent[0]
    referenced_done, _ = wait_until_done(sdk, referenced.id)

    paged = [v.id for v in sdk.videos.list(limit=1)]
    first_page = sdk.videos.list(limit=1)

    strict = client(settings, max_retries=0)
    return {
        "created": created.model_dump(),
        "seen": seen,
        "done": done.model_dump(),
        "content": {"bytes": len(data), "mp4": data[4:8] == b"ftyp"},
        "referenced": referenced_done.model_dump(),
        "sameVideoOnRetry": sent[0].id == sent[1].id,
        "listed": paged,
        "firstPage": {"count": len(first_page.data), "hasMore": first_page.has_more, "lastId": first_page.last_id},
        "badSeconds": raised(lambda: strict.videos.create(model=settings["model"], prompt="too long", seconds="12")),
        "badSize": raised(lambda: strict.videos.create(model=settings["model"], prompt="too big", size="1280x720")),
        "unknown": raised(lambda: strict.videos.retrieve("job_doesnotexist")),
    }


def video_models(settings):
    sdk = client(settings)
    made = []
    for case in settings["cases"]:
        options = {name: case[name] for name in ("seconds", "size") if name in case}
        if case.get("reference"):
            with open(settings["pngPath"], "rb") as reference:
                made.append(sdk.videos.create(model=case["model"], prompt=case["prompt"], input_reference=reference, **options))
        else:
            made.append(sdk.videos.create(model=case["model"], prompt=case["prompt"], **options))
    results = []
    for created in made:
        done, _ = wait_until_done(sdk, created.id)
        data = sdk.videos.download_content(created.id).read() if done.status == "completed" else b""
        results.append({"video": done.model_dump(), "mp4": data[4:8] == b"ftyp"})
    strict = client(settings, max_retries=0)
    bad_size = settings["badSize"]
    return {
        "made": results,
        "refused": raised(lambda: strict.videos.create(model=settings["refusedModel"], prompt="a scene with its cast")),
        "badSize": raised(lambda: strict.videos.create(model=bad_size["model"], prompt="any frame", size=bad_size["size"])),
    }


SCENARIOS = {"edit": edit, "edit-mask": edit_mask, "video": video, "video-models": video_models}


def main():
    settings = json.load(sys.stdin)
    print(json.dumps(SCENARIOS[sys.argv[1]](settings)))


if __name__ == "__main__":
    main()
