"""Reads and validates Content Credentials with c2pa-python, an implementation independent of the service's.

stdin: {"trustAnchors": PEM, "files": [{"path": ..., "mimeType": ..., "sidecar": path or null}]}
stdout: one entry per file: the validation state, the active manifest's claim generator, assertions and
ingredients, or the error the reader raised.
"""
import json
import sys

import c2pa


def read(entry, context):
    try:
        with open(entry["path"], "rb") as stream:
            manifest_data = None
            if entry.get("sidecar"):
                with open(entry["sidecar"], "rb") as sidecar:
                    manifest_data = sidecar.read()
            with c2pa.Reader(entry["mimeType"], stream, manifest_data, context) as reader:
                store = json.loads(reader.json())
    except Exception as error:  # the reader raises for a file it finds no manifest in, or cannot parse
        return {"path": entry["path"], "error": f"{type(error).__name__}: {error}"}
    active = store.get("manifests", {}).get(store.get("active_manifest"), {})
    failures = (store.get("validation_results") or {}).get("activeManifest", {}).get("failure", [])
    return {
        "path": entry["path"],
        "state": store.get("validation_state"),
        "failures": [failure.get("code") for failure in failures],
        "claimGenerator": [info.get("name") for info in active.get("claim_generator_info", [])],
        "assertions": {assertion["label"]: assertion.get("data") for assertion in active.get("assertions", [])},
        "ingredients": [
            {"relationship": ingredient.get("relationship"), "manifest": ingredient.get("active_manifest")}
            for ingredient in active.get("ingredients", [])
        ],
        "manifests": len(store.get("manifests", {})),
    }


def main():
    settings = json.load(sys.stdin)
    context = c2pa.Context.from_dict({"verify": {"verify_trust": True}, "trust": {"trust_anchors": settings["trustAnchors"]}})
    json.dump([read(entry, context) for entry in settings["files"]], sys.stdout)


if __name__ == "__main__":
    main()
