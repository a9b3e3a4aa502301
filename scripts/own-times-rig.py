#!/usr/bin/env python3
"""Writes a benchmark rig whose tracks share no key times: own-times-rig.py OUT.glb [shared] [cubic]

43 skinned joints (a spine of 7, four limbs of 9) and four clips (walk 1.0 s, run 0.7 s,
idle 2.5 s, wave 1.6 s) that key translation, rotation and scale of every joint, LINEAR, at
30 fps. Each channel keeps its own random 60% of the keys (first and last always), as
exporters that drop redundant keys per channel write them; with `shared` every channel keeps
every key on one time array instead. With `cubic` the channels are CUBICSPLINE, each key's
tangents the central difference of its neighbours. The same file on every run (seeded).

The pose engine samples the first kind with lane batches and the second with block batches
(zoa-anim-runtime/src/animation.rs); BENCHMARKS.md compares both against ozz-animation by
adding the file to a local copy of the ozz kit (../shared/perf/ozz, whose asset list is fixed).
"""
import json
import math
import random
import struct
import sys

out = sys.argv[1]
shared = 'shared' in sys.argv[2:]
cubic = 'cubic' in sys.argv[2:]
rng = random.Random(7)
J = 43
parents = [-1] + list(range(0, 6))
for base in (6, 6, 2, 2):
    p = base
    for _ in range(9):
        parents.append(p)
        p = len(parents) - 1
binary = bytearray()
accessors, views = [], []


def add(data, count, typ, comp=5126, lo=None, hi=None):
    while len(binary) % 4:
        binary.append(0)
    views.append({'buffer': 0, 'byteOffset': len(binary), 'byteLength': len(data)})
    binary.extend(data)
    a = {'bufferView': len(views) - 1, 'componentType': comp, 'count': count, 'type': typ}
    if lo is not None:
        a['min'], a['max'] = lo, hi
    accessors.append(a)
    return len(accessors) - 1


nodes = []
for j in range(J):
    n = {'name': f'joint_{j:02d}', 'translation': [0.0, 0.1 if j else 0.0, 0.02 * (j % 3)]}
    kids = [c for c in range(J) if parents[c] == j]
    if kids:
        n['children'] = kids
    nodes.append(n)
pa = add(struct.pack('<9f', 0, 0, 0, 1, 0, 0, 0, 1, 0), 3, 'VEC3', lo=[0, 0, 0], hi=[1, 1, 0])
ja = add(struct.pack('<12H', *([0, 1, 2, 3] * 3)), 3, 'VEC4', comp=5123)
wa = add(struct.pack('<12f', *([0.25] * 12)), 3, 'VEC4')
ibm = b''.join(struct.pack('<16f', 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -0.1 * j, 0, 1) for j in range(J))
ia = add(ibm, J, 'MAT4')
nodes.append({'name': 'body', 'mesh': 0, 'skin': 0})
anims = []
for c, (name, dur) in enumerate([('walk', 1.0), ('run', 0.7), ('idle', 2.5), ('wave', 1.6)]):
    n = int(round(dur * 30)) + 1
    times = [i / 30 for i in range(n)]
    ta = add(struct.pack(f'<{n}f', *times), n, 'SCALAR', lo=[0.0], hi=[times[-1]])
    samplers, channels = [], []
    for j in range(J):
        ph = 0.37 * j + c
        tr, ro, sc = [], [], []
        for t in times:
            w = 2 * math.pi * t / dur
            tr += [0.01 * math.sin(w + ph), 0.1 + 0.01 * math.cos(w + ph), 0.02 * (j % 3)]
            ax = (math.sin(ph), math.cos(ph * 1.3), 0.5)
            norm = math.sqrt(sum(x * x for x in ax))
            s = math.sin(0.3 * math.sin(w + ph))
            ro += [ax[0] / norm * s, ax[1] / norm * s, ax[2] / norm * s, math.cos(0.3 * math.sin(w + ph))]
            sc += [1 + 0.05 * math.sin(2 * w + ph)] * 3
        for path, vals, typ, comps in (('translation', tr, 'VEC3', 3), ('rotation', ro, 'VEC4', 4),
                                       ('scale', sc, 'VEC3', 3)):
            if shared:
                ia_, kept = ta, list(range(n))
            else:
                kept = [i for i in range(n) if i in (0, n - 1) or rng.random() < 0.6]
                kt = [times[i] for i in kept]
                ia_ = add(struct.pack(f'<{len(kt)}f', *kt), len(kt), 'SCALAR', lo=[kt[0]], hi=[kt[-1]])
            if cubic:
                kv = []
                for i in kept:
                    before, after = max(i - 1, 0), min(i + 1, n - 1)
                    tangent = [(vals[after * comps + k] - vals[before * comps + k]) * 15 for k in range(comps)]
                    kv += tangent + vals[i * comps:(i + 1) * comps] + tangent
            else:
                kv = [v for i in kept for v in vals[i * comps:(i + 1) * comps]]
            oa = add(struct.pack(f'<{len(kv)}f', *kv), len(kv) // comps, typ)
            samplers.append({'input': ia_, 'output': oa, 'interpolation': 'CUBICSPLINE' if cubic else 'LINEAR'})
            channels.append({'sampler': len(samplers) - 1, 'target': {'node': j, 'path': path}})
    anims.append({'name': name, 'samplers': samplers, 'channels': channels})
while len(binary) % 4:
    binary.append(0)
doc = {'asset': {'version': '2.0', 'generator': 'zoa-anim scripts/own-times-rig.py'}, 'scene': 0,
       'scenes': [{'nodes': [0, J]}], 'nodes': nodes,
       'meshes': [{'primitives': [{'attributes': {'POSITION': pa, 'JOINTS_0': ja, 'WEIGHTS_0': wa}}]}],
       'skins': [{'joints': list(range(J)), 'inverseBindMatrices': ia, 'skeleton': 0}],
       'animations': anims, 'accessors': accessors, 'bufferViews': views,
       'buffers': [{'byteLength': len(binary)}]}
js = json.dumps(doc).encode()
while len(js) % 4:
    js += b' '
glb = struct.pack('<III', 0x46546C67, 2, 12 + 8 + len(js) + 8 + len(binary))
glb += struct.pack('<II', len(js), 0x4E4F534A) + js + struct.pack('<II', len(binary), 0x004E4942) + bytes(binary)
with open(out, 'wb') as f:
    f.write(glb)
