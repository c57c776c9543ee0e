import re, sys, collections
pat = re.compile(r"psum=psum\.b(\d+)\[p(\d+):(\d+)\](?:\+0x([0-9a-f]+))?((?:\[\d+x\d+\])+), flags=(\w+)")
for fn in sys.argv[1:]:
    opened = {}
    kinds = collections.Counter(); ex = {}
    for ln, line in enumerate(open(fn)):
        if "Matmul" not in line: continue
        m = pat.search(line)
        b, p0, p1, off, dims, fl = m.groups()
        b = int(b); off = int(off or "0", 16); p0, p1 = int(p0), int(p1)
        elems = [0]
        for d in re.findall(r"\[(\d+)x(\d+)\]", dims):
            s, k = int(d[0]), int(d[1])
            elems = [e + s * i for e in elems for i in range(k)]
        cells = {(p, off // 4 + e) for p in range(p0, p1) for e in elems}
        key = (b, p0)
        if fl in ("first", "whole"):
            opened[key] = dict(start=set(cells), union=set(cells), ln=ln, line=line)
        else:
            g = opened.get(key)
            if g is None:
                kinds["no group on these partitions"] += 1; ex.setdefault("nogroup", line[:200]); continue
            out = cells - g["union"]
            if out:
                es = sorted({e for _p, e in out})
                k = f"{len(es)} elems first-in-group, e.g. {es[:4]}"
                kinds[k] += 1; ex.setdefault(k, (g["line"].split("|")[-1][:130], line.split("|")[-1][:130]))
            g["union"] |= cells
    print(fn)
    for k, v in kinds.most_common(12): print("  ", v, k, ex.get(k, ex.get("nogroup")))
