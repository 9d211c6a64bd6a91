"""``python -m benchmarks server --soak SECONDS``: tables opened, played and closed over
and over (a screen dropping and coming back, as a phone that slept), the server's RSS,
threads and open files sampled, to show nothing leaks."""

from __future__ import annotations

import asyncio
import random
import time

from .client import Screen
from .drivers import Run, TableDriver
from .served import Proc


async def soak(port: int, proc: Proc, tables: int, seconds: float) -> int:
    await asyncio.sleep(0.5)
    base = proc.status()
    idle_fds = proc.fd_kinds()
    print(f"  idle server: RSS {base['VmRSS'] / 1024:.1f} MB, threads {base['Threads']}, "
          f"fds {base['fds']}", flush=True)
    run = Run()
    end = time.perf_counter() + seconds
    cycles = 0

    async def worker(i: int) -> None:
        nonlocal cycles
        rng = random.Random(i)
        while time.perf_counter() < end:
            d = TableDriver(port, run, rng.randrange(10**9))
            await d.setup()
            play = asyncio.ensure_future(d.play())
            await asyncio.sleep(rng.uniform(2.0, 6.0))
            # one screen drops and comes back, as a phone that slept
            s = d.screens[1]
            s.close()
            d.screens[1] = Screen(port, s.path)
            d.screens[1].start()
            await asyncio.sleep(rng.uniform(1.0, 3.0))
            play.cancel()
            await asyncio.gather(play, return_exceptions=True)
            d.close()
            cycles += 1

    async def paced(i: int) -> None:
        # posts at a human pace inside a busy table: pace() sleeps 1-2 s in "human"
        await worker(i)

    run.switch(("ours", "human"))
    samples: list[tuple[float, dict[str, int]]] = []
    t0 = time.perf_counter()
    workers = [asyncio.ensure_future(paced(i)) for i in range(tables)]
    while time.perf_counter() < end:
        await asyncio.sleep(min(10.0, max(0.0, end - time.perf_counter())))
        st = proc.status()
        samples.append((time.perf_counter() - t0, st))
        print(f"  {samples[-1][0]:6.0f} s  RSS {st['VmRSS'] / 1024:6.1f} MB  threads "
              f"{st['Threads']}  fds {st['fds']}  table cycles {cycles}", flush=True)
    await asyncio.gather(*workers, return_exceptions=True)
    await asyncio.sleep(3.0)
    after = proc.status()
    n = max(1, len(samples) // 5)
    early = [s for _, s in samples[:n]]
    late = [s for _, s in samples[-n:]]

    def avg(xs: list[dict[str, int]], k: str) -> float:
        return sum(x[k] for x in xs) / len(xs)

    print(f"  table cycles (5 streams opened and closed each): {cycles}, "
          f"posts accepted: {len(run.posts)}")
    print(f"  RSS first fifth {avg(early, 'VmRSS') / 1024:.1f} MB -> last fifth "
          f"{avg(late, 'VmRSS') / 1024:.1f} MB (growth "
          f"{(avg(late, 'VmRSS') - avg(early, 'VmRSS')) / 1024:+.1f} MB); threads "
          f"{avg(early, 'Threads'):.0f} -> {avg(late, 'Threads'):.0f}; fds "
          f"{avg(early, 'fds'):.0f} -> {avg(late, 'fds'):.0f}")
    print(f"  all clients gone: RSS {after['VmRSS'] / 1024:.1f} MB, threads {after['Threads']} "
          f"(idle {base['Threads']}), fds {after['fds']} (idle {base['fds']}: "
          f"{idle_fds}; now: {proc.fd_kinds()})")
    return 0
