"""A guided tour of ModelStore with a small Task/Category model.

Run it with the server binary as the first argument, or let the client find it
($MODELSTORE_BIN, the binary of the installed wheel, then PATH):

    MODELSTORE_BIN=.build/debug/modelstore python Clients/python/examples/tasks.py
    python Clients/python/examples/tasks.py .build/debug/modelstore --store /tmp/tasks.store

Each step prints what it is about to do and what the server answered.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any, Dict

try:
    from modelstore_client import (BinaryNotFoundError, Client, ConstraintError, NotFoundError,
                                   ValidationError, resolve_binary)
    from modelstore_client.values import encode
except ImportError:  # running from a checkout without `pip install`
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
    from modelstore_client import (BinaryNotFoundError, Client, ConstraintError, NotFoundError,
                                   ValidationError, resolve_binary)
    from modelstore_client.values import encode

SCHEMA: Dict[str, Any] = {
    "version": "1.0.0",
    "entities": [
        {
            "name": "Category",
            "attributes": [
                {"name": "id", "type": "uuid", "unique": True, "default": {"generate": "uuid"}},
                {"name": "name", "type": "string"},
                {"name": "color", "type": "string", "default": "blue"},
            ],
            "relationships": [
                {"name": "tasks", "destination": "Task", "inverse": "category",
                 "toMany": True, "deleteRule": "cascade"},
            ],
        },
        {
            "name": "Task",
            "attributes": [
                {"name": "id", "type": "uuid", "unique": True, "default": {"generate": "uuid"}},
                {"name": "title", "type": "string"},
                {"name": "isCompleted", "type": "bool", "default": False},
                {"name": "createdAt", "type": "date", "default": {"generate": "now"}},
                {"name": "priority", "type": "int", "default": 0},
            ],
            "relationships": [
                {"name": "category", "destination": "Category", "inverse": "tasks",
                 "deleteRule": "nullify"},
            ],
        },
    ],
}


def step(text: str) -> None:
    print(f"\n== {text}")


def show(label: str, value: Any) -> None:
    print(f"   {label}: {json.dumps(value, sort_keys=True, default=encode)}")


def tour(store: Client) -> None:
    step("Handshake and define the Task/Category model")
    show("initialize", store.initialize())
    store.model_define(SCHEMA)
    print("   model defined: entities Category, Task")

    step("Create two categories (color falls back to its default)")
    work = store.insert("Category", {"name": "Work", "color": "red"})
    home = store.insert("Category", {"name": "Home"})
    show("work", work)
    show("home", home)

    step("Create tasks; defaults fill id, isCompleted, createdAt and priority")
    tasks = {}
    for title, done, priority in [("Write report", False, 2), ("Book flights", True, 1),
                                  ("Fix the sink", False, 0), ("Reply to Ana", False, 1)]:
        tasks[title] = store.insert(
            "Task", {"title": title, "isCompleted": done, "priority": priority}
        )
        print(f"   inserted {tasks[title]['_id']}: {title!r}")
        time.sleep(0.01)  # distinct createdAt stamps make the sort visible

    step("Link tasks to categories by setting the to-one 'category'")
    for title, category in [("Write report", work), ("Reply to Ana", work),
                            ("Fix the sink", home)]:
        store.update(tasks[title]["_id"], {"category": category["_id"]})
        print(f"   {title!r} -> {category['name']}")
    # To-many relationships are sent only when asked: as ids, or just their count.
    show("Work.tasks (the inverse, kept by the server)", store.get(work["_id"], to_many="ids")["tasks"])
    show("tasks per category", {c["name"]: c["tasks"] for c in store.fetch("Category", to_many="count")["objects"]})

    step("Fetch pending tasks, newest first")
    pending = store.fetch("Task", where="isCompleted == NO",
                          sort=[{"key": "createdAt", "ascending": False}])["objects"]
    for task in pending:
        print(f"   {task['createdAt']}  {task['title']}")

    step("Count")
    show("all tasks", store.count("Task")["count"])
    show("pending", store.count("Task", where="isCompleted == NO")["count"])

    step("Group tasks into sections by category, as NSFetchedResultsController does")
    grouped = store.fetch("Task", sort=[{"key": "category.name"}, {"key": "title"}],
                          section_by="category.name")
    for section in grouped["sections"]:
        start, end = section["range"]
        titles = [t["title"] for t in grouped["objects"][start:end]]
        print(f"   {section['key'] or '(no category)'}: {titles}")

    step("Aggregate: tasks and total priority per category, categories with any task")
    totals = store.aggregate("Task", group_by=["category.name"],
                             aggregates=[{"fn": "count", "as": "tasks"},
                                         {"fn": "sum", "key": "priority", "as": "priority"}],
                             having="tasks >= 1")
    for group in totals["groups"]:
        print(f"   {group['key']['category.name'] or '(no category)'}: {group['values']}")

    step("Predicates over to-many relationships")
    show("categories with an unfinished task",
         store.call("query.ids", {"entity": "Category",
                                  "where": "ANY tasks.isCompleted == NO"})["ids"])

    step("Delete the Work category: its tasks are cascaded away")
    show("deleted", store.delete(work["_id"])["deleted"])
    try:
        store.get(tasks["Write report"]["_id"])
    except NotFoundError as error:
        print(f"   'Write report' is gone: {error}")
    show("tasks left", [t["title"] for t in store.fetch("Task")["objects"]])

    step("Invalid input is rejected with typed errors")
    try:
        store.insert("Task", {"title": 42})
    except ValidationError as error:
        print(f"   wrong type -> ValidationError {error}")
    try:
        store.insert("Category", {"name": "Home again", "id": home["id"]})
    except ConstraintError as error:
        print(f"   duplicate unique id -> ConstraintError {error}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("binary", nargs="?",
                        help="modelstore binary (default: the client's lookup: $MODELSTORE_BIN, "
                        "the installed wheel's binary, PATH)")
    parser.add_argument("--store", help="store file to use instead of an in-memory store")
    options = parser.parse_args()
    try:
        binary = resolve_binary(options.binary)
    except BinaryNotFoundError as error:
        parser.error(str(error))

    where = options.store or "memory"
    step(f"Start {binary} (store: {where})")
    with Client(binary, store=options.store) as store:
        print(f"   server pid {store.pid}")
        tour(store)
        step("Close: shutdown request, exit notification, wait for the process")
    print(f"   server exited with code {store.returncode}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
