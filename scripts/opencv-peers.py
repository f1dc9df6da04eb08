#!/usr/bin/python3
"""opencv-peers.py: time OpenCV on the cases of the cpu-peers preset, on this host.

OpenCV is not a dependency of convbench; this optional script measures it where
python3 and its cv2 module are installed (on Debian: the python3-opencv package),
so that the report can set cpu-fast beside OpenCV measured on the same host:

    /usr/bin/python3 scripts/opencv-peers.py [-count N] [-threads T] [-out FILE]

It writes Go benchmark format, one line per timed call, to
results/data/<host>/peers/opencv.txt by default (<host> as the sweep names the
CPU-only host directory), with the OpenCV version, threads and command in its
configuration lines. Cases: 2048x2048, one channel, zero border (BORDER_CONSTANT),
float32 output; dense KxK random filters through filter2D (OpenCV picks its DFT
path for large kernels itself) and Gaussian filters through sepFilter2D; input
f32, u8 and i16.
"""
import argparse
import os
import re
import statistics
import sys
import time

import numpy as np

try:
    import cv2
except ImportError:
    sys.exit("opencv-peers: python3 has no cv2 module (on Debian: apt-get install python3-opencv)")

SIZE = 2048
KS = (3, 7, 21)
TYPES = {"f32": np.float32, "u8": np.uint8, "i16": np.int16}


def cpu_name():
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return "unknown"


def slug(name):
    # The sweep's runfile.Slug for a host without a GPU: "cpu-" and the
    # CPU name lower-cased, every run of other characters one dash.
    return "cpu-" + re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def image(typ, rng):
    if typ == "f32":
        return rng.random((SIZE, SIZE), dtype=np.float32)
    if typ == "u8":
        return rng.integers(0, 256, (SIZE, SIZE), dtype=np.uint8)
    return rng.integers(-32768, 32768, (SIZE, SIZE), dtype=np.int16)


def calls(rng):
    for k in KS:
        dense = rng.standard_normal((k, k)).astype(np.float32)
        yield "filter2D", "dense%d" % k, lambda im, d=dense: cv2.filter2D(
            im, cv2.CV_32F, d, borderType=cv2.BORDER_CONSTANT)
    for k in KS:
        g = cv2.getGaussianKernel(k, -1, cv2.CV_32F)
        yield "sepFilter2D", "gauss%d" % k, lambda im, g=g: cv2.sepFilter2D(
            im, cv2.CV_32F, g, g, borderType=cv2.BORDER_CONSTANT)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-count", type=int, default=11, help="timed calls per case (after 2 warm-up calls)")
    ap.add_argument("-threads", type=int, default=os.cpu_count(), help="cv2.setNumThreads")
    ap.add_argument("-out", default="", help="output file (default results/data/<host>/peers/opencv.txt)")
    args = ap.parse_args()
    cv2.setNumThreads(args.threads)
    cpu = cpu_name()
    out = args.out or os.path.join("results", "data", slug(cpu), "peers", "opencv.txt")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    rng = np.random.default_rng(1)
    lines = [
        "# opencv-peers: OpenCV measured on the cpu-peers cases of this host; command: %s scripts/opencv-peers.py -count %d -threads %d" % (sys.executable, args.count, args.threads),
        "cpu: " + cpu,
        "opencv-version: " + cv2.__version__,
        "opencv-threads: %d" % cv2.getNumThreads(),
        "numpy-version: " + np.__version__,
        "date: " + time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    ]
    summary = []
    for typ in TYPES:
        im = image(typ, rng)
        for call, filt, fn in calls(rng):
            for _ in range(2):
                fn(im)
            ts = []
            for _ in range(args.count):
                t0 = time.perf_counter_ns()
                fn(im)
                ts.append(time.perf_counter_ns() - t0)
            name = "BenchmarkOpenCV/call=%s/size=%dx%d/filter=%s/type=%s" % (call, SIZE, SIZE, filt, typ)
            lines += ["%s \t1\t%d ns/op" % (name, t) for t in ts]
            summary.append("%-12s %-8s %-4s %8.2f ms" % (call, filt, typ, statistics.median(ts) / 1e6))
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(summary))
    print("opencv-peers: wrote " + out)


if __name__ == "__main__":
    main()
