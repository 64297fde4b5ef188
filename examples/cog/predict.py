"""A small CPU "diffusion" model for genmedia's Cog provider: it renders an image from its prompt.

The picture is deterministic for a prompt, a seed and a size: the prompt picks the palette and the seed places the
shapes, and every step adds one layer, as a denoising loop would. Each step logs `step i/N` (genmedia reads progress
from it) and a tqdm-style bar on stderr. `run` is async so the server can run several predictions at once when it is
started with COG_MAX_CONCURRENCY=N.

Environment:
  COG_EXAMPLE_STEP_SECONDS  time one step takes (default 0.1), so tests can hold a prediction open
  COG_EXAMPLE_RUN_LOG       a file that gets a line per run started and per run canceled (tests count runs with it)
"""
import asyncio
import hashlib
import os
import random
import sys
import tempfile
import time
from typing import Optional

from cog import BaseRunner, CancelationException, Input, Path
from PIL import Image, ImageDraw

STEP_SECONDS = float(os.environ.get("COG_EXAMPLE_STEP_SECONDS", "0.1"))
RUN_LOG = os.environ.get("COG_EXAMPLE_RUN_LOG")


def palette(prompt: str) -> list:
    digest = hashlib.sha256(prompt.encode("utf-8")).digest()
    return [tuple(digest[i : i + 3]) for i in range(0, 24, 3)]


def record(event: str, prompt: str, steps: int, seed: int) -> None:
    if RUN_LOG:
        with open(RUN_LOG, "a", encoding="utf-8") as log:
            log.write(f"{event}\t{time.time():.3f}\t{seed}\t{steps}\t{prompt}\n")


class Predictor(BaseRunner):
    def setup(self) -> None:
        print("setup: ready")

    async def run(
        self,
        prompt: str = Input(description="What to draw", max_length=500),
        steps: int = Input(description="Denoising steps (one layer each)", default=8, ge=1, le=50),
        width: int = Input(description="Width in pixels", default=256, ge=64, le=1024),
        height: int = Input(description="Height in pixels", default=256, ge=64, le=1024),
        seed: Optional[int] = Input(description="Random seed; random when left out", default=None),
    ) -> Path:
        seed = seed if seed is not None else random.randrange(2**31)
        record("started", prompt, steps, seed)
        print(f"seed {seed}", flush=True)
        colors = palette(prompt)
        rng = random.Random(seed)
        image = Image.new("RGB", (width, height), colors[0])
        draw = ImageDraw.Draw(image)
        for step in range(1, steps + 1):
            try:
                await asyncio.sleep(STEP_SECONDS)
            except (asyncio.CancelledError, CancelationException):
                record("canceled", prompt, steps, seed)
                raise
            x, y = rng.randrange(width), rng.randrange(height)
            r = rng.randrange(8, max(9, min(width, height) // 3))
            draw.ellipse((x - r, y - r, x + r, y + r), fill=colors[1 + step % 7])
            print(f"step {step}/{steps}", flush=True)
            done = step * 100 // steps
            bar = "#" * (done // 10)
            sys.stderr.write(f"\r{done:3d}%|{bar:<10}| {step}/{steps} [00:00<00:00]")
            sys.stderr.flush()
        draw.text((8, height - 20), prompt[:40], fill=(255, 255, 255))
        out = Path(tempfile.mkdtemp()) / "image.png"
        image.save(out, format="PNG")
        return out
