"""Binary and XML property lists, well formed and hostile (for Z_METADATA and .xccurrentversion)."""

import struct

from . import values


def _int_marker(kind, n):
    return bytes([kind | n]) if n < 15 else bytes([kind | 0xF, 0x11]) + struct.pack(">H", n)


def bplist(objects, top=0, offset_size=4, ref_size=2, corrupt=None):
    """Encodes a list of objects; containers hold references (indexes into `objects`):
    ('dict', [(keyref, valref)...]), ('array', [refs]), ('str', text), ('int', n), ('real', x),
    ('data', bytes). Shared references and cycles are allowed: that is the point."""
    body, offsets = bytearray(b"bplist00"), []
    refs = lambda rs: b"".join(r.to_bytes(ref_size, "big") for r in rs)
    for kind, v in objects:
        offsets.append(len(body))
        if kind == "str":
            raw = v.encode("ascii", "replace")
            body += _int_marker(0x50, len(raw)) + raw
        elif kind == "int":
            body += b"\x13" + struct.pack(">q", v)
        elif kind == "real":
            body += b"\x23" + struct.pack(">d", v)
        elif kind == "data":
            body += _int_marker(0x40, len(v)) + v
        elif kind == "array":
            body += _int_marker(0xA0, len(v)) + refs(v)
        elif kind == "dict":
            body += _int_marker(0xD0, len(v)) + refs([k for k, _ in v]) + refs([x for _, x in v])
    table = len(body)
    for o in offsets:
        body += o.to_bytes(offset_size, "big")
    body += bytes(6) + bytes([offset_size, ref_size]) + struct.pack(">QQQ", len(objects), top, table)
    if corrupt:
        corrupt(body)
    return bytes(body)


def metadata_objects(entities):
    """A Z_METADATA-like plist: NSStoreModelVersionHashes {entity: data}, NSStoreType, NSStoreUUID."""
    objs = [("dict", []), ("str", "NSStoreModelVersionHashes"), ("dict", []), ("str", "NSStoreType"),
            ("str", "SQLite"), ("str", "NSStoreUUID"), ("str", "7586DF36-6B0E-45D3-9862-19C40A480696")]
    for name in entities:
        objs.append(("str", name))
        objs.append(("data", bytes(32)))
        objs[2][1].append((len(objs) - 2, len(objs) - 1))
    objs[0][1].extend([(1, 2), (3, 4), (5, 6)])
    return objs


def hostile_bplist(rng, entities):
    kind = rng.randrange(7)
    if kind == 0:  # shared references: 2^depth expansion when re-expanded (protocol item 4)
        depth = rng.choice([20, 25, 30])
        objs = [("dict", [(1, 2)]), ("str", "NSStoreModelVersionHashes")]
        for d in range(depth):
            objs.append(("array", [len(objs) + 1, len(objs) + 1]))
        objs.append(("str", "leaf"))
        return bplist(objs)
    if kind == 1:  # a cycle
        return bplist([("array", [1]), ("array", [0])])
    if kind == 2:  # nested past any sane depth
        objs = [("array", [i + 1]) for i in range(rng.choice([100, 1000, 5000]))] + [("int", 1)]
        return bplist(objs)
    if kind == 3:  # offsets or counts out of range
        def corrupt(b):
            i = rng.randrange(8, len(b))
            b[i] = rng.choice([0xFF, 0x00, 0x7F, 0x80])
        return bplist(metadata_objects(entities), corrupt=corrupt)
    if kind == 4:  # a trailer that lies
        good = bytearray(bplist(metadata_objects(entities)))
        good[-24:] = struct.pack(">QQQ", rng.choice([2**63, 0, 2**32]), rng.choice([0, 2**40]), rng.choice([0, 2**62]))
        return bytes(good)
    if kind == 5:  # wrong value types
        objs = metadata_objects(entities)
        objs[2] = ("array", [1, 1])
        return bplist(objs)
    data = bytearray(bplist(metadata_objects(entities)))
    for _ in range(rng.randrange(1, 6)):
        data[rng.randrange(len(data))] = rng.randrange(256)
    return bytes(data)


def xml_plist(rng, current):
    r = rng.random()
    if r < 0.5:
        return ('<?xml version="1.0" encoding="UTF-8"?>\n<plist version="1.0"><dict>'
                '<key>_XCCurrentVersionName</key><string>%s</string></dict></plist>\n' % current)
    if r < 0.6:
        return '<plist><dict><key>_XCCurrentVersionName</key><string>../../../etc/passwd</string></dict></plist>'
    if r < 0.7:
        return "<plist>" + "<array>" * 10000 + "</array>" * 10000 + "</plist>"
    if r < 0.8:
        return ('<!DOCTYPE p [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">'
                '<!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]><plist><dict><key>_XCCurrentVersionName</key>'
                '<string>&c;</string></dict></plist>')
    return "<plist><dict><key>_XCCurrentVersionName</key><string>%s" % values.string(rng)
