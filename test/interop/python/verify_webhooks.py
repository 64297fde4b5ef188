"""Verifies webhook deliveries with the Standard Webhooks reference library for Python (standardwebhooks).

Reads {"secret", "otherSecret", "deliveries": [{"headers", "body"}]} as JSON on stdin: the account's whsec_ secret,
another account's, and each delivery as the receiver got it (the raw body and the headers). Prints, for each
delivery, the verified payload's type, job id and status, and whether a changed body or the other secret is
refused.

usage: verify_webhooks.py < settings.json
"""

import json
import sys

from standardwebhooks import Webhook, WebhookVerificationError


def refused(webhook, body, headers):
    try:
        webhook.verify(body, headers)
    except WebhookVerificationError:
        return True
    return False


def main():
    settings = json.load(sys.stdin)
    webhook = Webhook(settings["secret"])
    other = Webhook(settings["otherSecret"])
    results = []
    for delivery in settings["deliveries"]:
        headers, body = delivery["headers"], delivery["body"]
        payload = webhook.verify(body, headers)
        results.append(
            {
                "webhookId": headers["webhook-id"],
                "type": payload["type"],
                "jobId": payload["data"]["jobId"],
                "status": payload["data"]["status"],
                "changedBodyRefused": refused(webhook, body.replace(payload["data"]["jobId"], "job_someone_else"), headers),
                "otherSecretRefused": refused(other, body, headers),
            }
        )
    print(json.dumps(results))


if __name__ == "__main__":
    main()
