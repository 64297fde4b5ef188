"""Follows one job's event stream with httpx-sse, leaves after the first events, and resumes with Last-Event-ID.

Reads {"baseUrl", "apiKey", "jobId", "readFirst"} as JSON on stdin. Prints the events of the first connection, those
of the resumed one (until the server ends the stream after the job's terminal event), and the status of one more
reconnection after the end.

usage: sse_resume.py < settings.json
"""

import json
import sys

import httpx
from httpx_sse import connect_sse


def events(source):
    """The stream's events; httpx-sse also yields the `retry:` hint that opens the stream, as an event without data."""
    for sse in source.iter_sse():
        if sse.data:
            yield sse


def seen(sse):
    event = sse.json()
    return {"id": sse.id, "event": sse.event, "sequence": event["sequence"], "type": event["type"], "status": event["status"]}


def main():
    settings = json.load(sys.stdin)
    path = f"/v1/jobs/{settings['jobId']}/events"
    headers = {"Authorization": f"Bearer {settings['apiKey']}"}
    with httpx.Client(base_url=settings["baseUrl"], headers=headers, timeout=httpx.Timeout(10, read=60)) as client:
        first = []
        with connect_sse(client, "GET", path) as source:
            source.response.raise_for_status()
            for sse in events(source):
                first.append(seen(sse))
                if len(first) == settings["readFirst"]:
                    break
        resumed = []
        with connect_sse(client, "GET", path, headers={"Last-Event-ID": first[-1]["id"]}) as source:
            source.response.raise_for_status()
            for sse in events(source):
                resumed.append(seen(sse))
        after_end = client.get(path, headers={"Accept": "text/event-stream", "Last-Event-ID": resumed[-1]["id"]})
    print(json.dumps({"first": first, "resumed": resumed, "afterEndStatus": after_end.status_code}))


if __name__ == "__main__":
    main()
