#!/usr/bin/env python3
"""Checks docs/api/openapi.json beyond what openapi-spec-validator checks (issue 32).

    python3 deploy/local/check-openapi.py [docs/api/openapi.json]

- every operation has an operationId (unique) and an x-baton-scope (read, submit, operate,
  admin; `none` only with `security: []`, `any` for any valid token);
- every operation that needs a token declares 401, 429 and 503, and 403 unless its scope is `any`;
- every 4xx and 5xx response is the Error schema as application/json, and every 429 has a
  required Retry-After header;
- every request body with an object schema is strict (additionalProperties false), recursively
  through the components it names, except the schemas that are deliberately open;
- every $ref resolves, and every component is used.
Exit 0 and one summary line when all hold; otherwise one line per problem and exit 1.
"""
import json
import sys

SCOPES = {"read", "submit", "operate", "admin", "none", "any"}
METHODS = {"get", "put", "post", "delete", "patch", "head", "options", "trace"}
# Objects whose members are the user's (a graph, a run input, event data, a JSON Schema, ...).
OPEN_OK = {"Graph", "RunInput", "ErrorDetail"}

path = sys.argv[1] if len(sys.argv) > 1 else "docs/api/openapi.json"
doc = json.load(open(path))
problems = []


def resolve(ref):
    if not ref.startswith("#/"):
        problems.append(f"external $ref {ref}")
        return None
    node = doc
    for part in ref[2:].split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        if not isinstance(node, dict) or part not in node:
            problems.append(f"$ref {ref} does not resolve")
            return None
        node = node[part]
    return node


refs = set()


def walk(node, where):
    if isinstance(node, dict):
        if "$ref" in node and isinstance(node["$ref"], str):
            refs.add(node["$ref"])
            resolve(node["$ref"])
        for k, v in node.items():
            walk(v, f"{where}/{k}")
    elif isinstance(node, list):
        for i, v in enumerate(node):
            walk(v, f"{where}/{i}")


walk(doc, "#")

for kind, members in doc.get("components", {}).items():
    if kind == "securitySchemes":
        continue
    for name in members:
        if f"#/components/{kind}/{name}" not in refs:
            problems.append(f"components/{kind}/{name} is never used")


def deref(node):
    seen = 0
    while isinstance(node, dict) and "$ref" in node and seen < 20:
        node = resolve(node["$ref"]) or {}
        seen += 1
    return node


def strict(schema, where, seen):
    """Every object schema reachable from a request body forbids unknown members."""
    if not isinstance(schema, dict):
        return
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        if name in OPEN_OK or schema["$ref"] in seen:
            return
        seen.add(schema["$ref"])
        strict(deref(schema), schema["$ref"], seen)
        return
    types = schema.get("type")
    types = types if isinstance(types, list) else [types]
    if "object" in types and "properties" in schema and schema.get("additionalProperties") is not False:
        problems.append(f"{where}: an object in a request body without additionalProperties: false")
    if "object" in types and "properties" in schema and not schema.get("required") and where.endswith("Create"):
        problems.append(f"{where}: a create body with no required member")
    for key in ("properties",):
        for name, sub in schema.get(key, {}).items():
            strict(sub, f"{where}.{name}", seen)
    for key in ("items",):
        if key in schema:
            strict(schema[key], f"{where}[]", seen)
    for key in ("oneOf", "anyOf", "allOf"):
        for i, sub in enumerate(schema.get(key, [])):
            strict(sub, f"{where}/{key}/{i}", seen)


op_ids = {}
count = 0
for p, item in doc["paths"].items():
    for method, op in item.items():
        if method not in METHODS:
            continue
        count += 1
        name = f"{method.upper()} {p}"
        oid = op.get("operationId")
        if not oid:
            problems.append(f"{name}: no operationId")
        elif oid in op_ids:
            problems.append(f"{name}: operationId {oid} also on {op_ids[oid]}")
        else:
            op_ids[oid] = name
        scope = op.get("x-baton-scope")
        if scope not in SCOPES:
            problems.append(f"{name}: x-baton-scope {scope!r} is not one of {sorted(SCOPES)}")
        responses = op.get("responses", {})
        public = op.get("security") == []
        if scope == "none" and not public:
            problems.append(f"{name}: scope none but the operation needs a token (set security: [])")
        if public and scope != "none":
            problems.append(f"{name}: security [] but scope {scope}")
        if not public:
            needed = {"401", "429", "503"} | (set() if scope == "any" else {"403"})
            for status in sorted(needed - set(responses)):
                problems.append(f"{name}: no {status} response")
        if not any(s.startswith("2") for s in responses):
            problems.append(f"{name}: no 2xx response")
        for status, response in responses.items():
            response = deref(response)
            if status[0] in "45":
                content = response.get("content", {})
                schema = content.get("application/json", {}).get("schema", {})
                if list(content) != ["application/json"] or schema.get("$ref") != "#/components/schemas/Error":
                    problems.append(f"{name}: {status} is not the Error schema as application/json")
            if status == "429":
                header = response.get("headers", {}).get("Retry-After", {})
                if not header.get("required"):
                    problems.append(f"{name}: 429 without a required Retry-After header")
            if status == "204" and "content" in response:
                problems.append(f"{name}: 204 with content")
        body = op.get("requestBody")
        if body:
            if method in {"get", "delete"}:
                problems.append(f"{name}: a request body on {method.upper()}")
            for media, content in deref(body).get("content", {}).items():
                if media != "application/json":
                    problems.append(f"{name}: request body as {media}")
                strict(content.get("schema", {}), name, set())
            codes = set(responses)
            for status in ("413", "415", "422"):
                if status not in codes:
                    problems.append(f"{name}: a body but no {status} response")
        for param in op.get("parameters", []):
            param = deref(param)
            if param.get("in") == "path" and "{" + param["name"] + "}" not in p:
                problems.append(f"{name}: path parameter {param['name']} not in the path")
        for part in p.split("/"):
            if part.startswith("{"):
                names = {deref(x).get("name") for x in op.get("parameters", []) + item.get("parameters", [])}
                if part[1:-1] not in names:
                    problems.append(f"{name}: {part} has no parameter")

for line in problems:
    print(line)
if problems:
    sys.exit(1)
print(f"{path}: {count} operations, {len(refs)} $refs, all checks passed")
