"""Verifies batch.completed and batch.progress deliveries with the Standard Webhooks reference library for Python (standardwebhooks).

Reads {"secret", "otherSecret", "deliveries": [{"headers", "body"}]} as JSON on stdin. Prints, for each delivery, the
verified payload's type, batch id, status and counts, and whether a changed body or the other secret is refused.

usage: verify_batch_webhooks.py < settings.json
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
        batch_id = payload["data"]["batchId"]
        results.append(
            {
                "webhookId": headers["webhook-id"],
                "type": payload["type"],
                "batchId": batch_id,
                "status": payload["data"]["status"],
                "counts": payload["data"]["counts"],
                "changedBodyRefused": refused(webhook, body.replace(batch_id, "bat_someone_else"), headers),
                "otherSecretRefused": refused(other, body, headers),
            }
        )
    print(json.dumps(results))


if __name__ == "__main__":
    main()
