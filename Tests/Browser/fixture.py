"""The store the browser session opens: projects, tasks, people and tags, with the delete
rules the studio's delete preview shows (Project.tasks cascades, Person.tasks denies,
Task.project nullifies), every attribute type a table shows, and a history written by an
author. Written through `modelstore serve` (one JSON-RPC message a line)."""
from __future__ import annotations

import json
import random
import subprocess
from pathlib import Path

SCHEMA = {
    "version": "1",
    "entities": [
        {"name": "Project",
         "attributes": [{"name": "name", "type": "string", "unique": True},
                        {"name": "color", "type": "string", "default": "indigo"},
                        {"name": "budget", "type": "decimal", "optional": True},
                        {"name": "startedAt", "type": "date", "optional": True}],
         "relationships": [{"name": "tasks", "destination": "Task", "inverse": "project", "toMany": True, "deleteRule": "cascade"},
                           {"name": "owner", "destination": "Person", "inverse": "projects"}]},
        {"name": "Task",
         "attributes": [{"name": "title", "type": "string"},
                        {"name": "priority", "type": "int16", "default": 0},
                        {"name": "done", "type": "bool", "default": False},
                        {"name": "due", "type": "date", "optional": True},
                        {"name": "estimate", "type": "double", "optional": True},
                        {"name": "ref", "type": "uuid", "default": {"generate": "uuid"}},
                        {"name": "notes", "type": "string", "optional": True},
                        {"name": "meta", "type": "json", "optional": True}],
         "relationships": [{"name": "project", "destination": "Project", "inverse": "tasks"},
                           {"name": "assignee", "destination": "Person", "inverse": "tasks"},
                           {"name": "tags", "destination": "Tag", "inverse": "tasks", "toMany": True}]},
        {"name": "Person",
         "attributes": [{"name": "name", "type": "string"},
                        {"name": "email", "type": "string", "unique": True}],
         "relationships": [{"name": "tasks", "destination": "Task", "inverse": "assignee", "toMany": True, "deleteRule": "deny"},
                           {"name": "projects", "destination": "Project", "inverse": "owner", "toMany": True}]},
        {"name": "Tag",
         "attributes": [{"name": "name", "type": "string", "unique": True}],
         "relationships": [{"name": "tasks", "destination": "Task", "inverse": "tags", "toMany": True}]},
    ],
}

# The schema a newer version of the app would bring: a migration the studio plans.
NEXT_SCHEMA = json.loads(json.dumps(SCHEMA))
NEXT_SCHEMA["version"] = "2"
_task = next(e for e in NEXT_SCHEMA["entities"] if e["name"] == "Task")
_task["attributes"] = [a for a in _task["attributes"] if a["name"] != "notes"] + [
    {"name": "details", "type": "string", "optional": True, "originalName": "notes"},
    {"name": "archived", "type": "bool", "default": False}]
_person = next(e for e in NEXT_SCHEMA["entities"] if e["name"] == "Person")
_person["attributes"].append({"name": "timeZone", "type": "string", "default": "UTC"})

PEOPLE = [("Ada Lovelace", "ada@example.org"), ("Grace Hopper", "grace@example.org"), ("Alan Kay", "alan@example.org"),
          ("Barbara Liskov", "barbara@example.org"), ("Edsger Dijkstra", "edsger@example.org"), ("Radia Perlman", "radia@example.org")]
PROJECTS = [("Website relaunch", "teal", "12500.00"), ("Mobile app", "indigo", "48000"), ("Data migration", "amber", "7300.50"),
            ("Office move", "rose", None), ("Hiring", "violet", "3000")]
TAGS = ["urgent", "blocked", "design", "backend", "frontend", "research", "ops"]
VERBS = ["Draft", "Review", "Ship", "Fix", "Plan", "Test", "Document", "Refactor", "Measure", "Prototype"]
THINGS = ["landing page", "login flow", "search index", "release notes", "budget", "onboarding email", "API limits",
          "dark mode", "CSV export", "sync conflicts", "floor plan", "interview loop", "backup job", "error pages"]


def write_messages(binary: str, store: Path, messages: list[dict], author: str | None = None) -> list[dict]:
    """Sends `messages` to `modelstore serve --store STORE` and returns its replies (failing on any error)."""
    lines = []
    if author:
        lines.append(json.dumps({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {"author": author}}))
    lines += [json.dumps({"jsonrpc": "2.0", "id": i, **m}) for i, m in enumerate(messages)]
    p = subprocess.run([binary, "serve", "--store", str(store)], input="\n".join(lines) + "\n",
                       capture_output=True, text=True, timeout=120)
    replies = [json.loads(line) for line in p.stdout.splitlines() if line.strip()]
    errors = [r for r in replies if "error" in r]
    if p.returncode != 0 or errors:
        raise RuntimeError(f"fixture write failed: {errors or p.stderr}")
    return [r for r in replies if r.get("id") != "init"]


def make_store(binary: str, store: Path, tasks: int = 140) -> None:
    rng = random.Random(18)
    changes = []
    for i, (name, email) in enumerate(PEOPLE):
        changes.append({"op": "insert", "entity": "Person", "ref": f"$p{i}", "values": {"name": name, "email": email}})
    for i, name in enumerate(TAGS):
        changes.append({"op": "insert", "entity": "Tag", "ref": f"$t{i}", "values": {"name": name}})
    for i, (name, color, budget) in enumerate(PROJECTS):
        changes.append({"op": "insert", "entity": "Project", "ref": f"$j{i}", "values": {
            "name": name, "color": color, "budget": budget, "startedAt": f"2026-0{i + 1}-1{i}T09:00:00Z", "owner": f"$p{i % len(PEOPLE)}"}})
    for i in range(tasks):
        title = f"{rng.choice(VERBS)} {rng.choice(THINGS)}"
        values = {
            "title": title, "priority": rng.choice([0, 0, 1, 1, 2, 3]), "done": rng.random() < 0.35,
            "due": None if rng.random() < 0.25 else f"2026-{rng.randint(3, 9):02d}-{rng.randint(1, 28):02d}T{rng.randint(8, 18):02d}:00:00Z",
            "estimate": None if rng.random() < 0.3 else round(rng.uniform(0.5, 16), 1),
            "notes": None if rng.random() < 0.6 else f"Discussed on {rng.choice(['Monday', 'Tuesday', 'Friday'])}; see the thread.",
            "meta": None if rng.random() < 0.7 else {"source": rng.choice(["email", "standup", "issue"]), "points": rng.randint(1, 8)},
            "project": f"$j{rng.randrange(len(PROJECTS))}",
            "tags": sorted({f"$t{rng.randrange(len(TAGS))}" for _ in range(rng.randint(0, 2))}),
        }
        # The last person is assigned nothing (she can be deleted); the others hold tasks (deny).
        if rng.random() < 0.8:
            values["assignee"] = f"$p{rng.randrange(len(PEOPLE) - 1)}"
        changes.append({"op": "insert", "entity": "Task", "values": values})
    write_messages(binary, store, [{"method": "model.define", "params": {"schema": SCHEMA}}])
    write_messages(binary, store, [{"method": "context.save", "params": {"changes": changes}}], author="seed")
    # A few later commits, so the history has more than the seed.
    write_messages(binary, store, [
        {"method": "objects.update", "params": {"id": "Task/20", "values": {"done": True}}},
        {"method": "objects.update", "params": {"id": "Project/2", "values": {"budget": "52000"}}},
        {"method": "objects.delete", "params": {"id": "Task/31"}},
    ], author="ada@laptop")
