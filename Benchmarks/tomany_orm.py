"""The SQLAlchemy 2 side of case `tomany`; runs with the python of the benchmark's own
virtual environment (ormvenv.py), never imported by run.py: SQLAlchemy is a comparison,
not a dependency of the project.

The seeds' model mapped by hand: the tables of seedmodel.HAND_DDL (integer primary keys,
the UUID as a 16-byte blob with a unique index, the date as REAL seconds), plus an index on
Task.category (the index the server's layout has on every to-one), on SQLite with WAL and
synchronous=NORMAL.

  python tomany_orm.py build DB DATA.json   creates DB and loads the rows DATA.json lists
  python tomany_orm.py fetch DB WARMUP MIN_SAMPLES MIN_SECONDS MAX_SAMPLES
      fetches the categories with an incomplete task, each time in a new Session (as each
      query.fetch reads the store anew); prints {"samples": [seconds...], "cpu_seconds":
      the process's CPU time over them, "names": [...], "sqlalchemy": version}
"""
from __future__ import annotations

import datetime
import json
import sys
import uuid
from typing import Optional

from sqlalchemy import Float, ForeignKey, LargeBinary, create_engine, event, insert, select
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column, relationship
from sqlalchemy.types import TypeDecorator

from benchlib import sample  # Benchmarks/ is this script's directory, so on sys.path


class UUIDBlob(TypeDecorator):
    """A UUID stored as its 16 bytes."""

    impl = LargeBinary(16)
    cache_ok = True

    def process_bind_param(self, value, dialect):
        return None if value is None else value.bytes

    def process_result_value(self, value, dialect):
        return None if value is None else uuid.UUID(bytes=value)


class EpochDate(TypeDecorator):
    """A date stored as REAL seconds since 1970 (UTC)."""

    impl = Float
    cache_ok = True

    def process_bind_param(self, value, dialect):
        return None if value is None else value.timestamp()

    def process_result_value(self, value, dialect):
        return None if value is None else datetime.datetime.fromtimestamp(value, datetime.timezone.utc)


class Base(DeclarativeBase):
    pass


class Category(Base):
    __tablename__ = "Category"
    pk: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(default="")
    tasks: Mapped[list["Task"]] = relationship(back_populates="category", cascade="all, delete-orphan")


class Task(Base):
    __tablename__ = "Task"
    pk: Mapped[int] = mapped_column(primary_key=True)
    id: Mapped[uuid.UUID] = mapped_column(UUIDBlob, unique=True, default=uuid.uuid4)
    title: Mapped[str] = mapped_column(default="")
    isCompleted: Mapped[bool] = mapped_column(default=False)
    createdAt: Mapped[datetime.datetime] = mapped_column(EpochDate, default=lambda: datetime.datetime.now(datetime.timezone.utc))
    priority: Mapped[int] = mapped_column(default=0)
    category_pk: Mapped[Optional[int]] = mapped_column("category", ForeignKey("Category.pk"), index=True)
    category: Mapped[Optional[Category]] = relationship(back_populates="tasks")


def engine_for(path: str):
    engine = create_engine(f"sqlite:///{path}")

    @event.listens_for(engine, "connect")
    def pragmas(dbapi_connection, _record):
        cur = dbapi_connection.cursor()
        cur.execute("PRAGMA journal_mode=WAL")
        cur.execute("PRAGMA synchronous=NORMAL")
        cur.close()

    return engine


def build(path: str, data_path: str) -> None:
    with open(data_path) as f:
        data = json.load(f)
    engine = engine_for(path)
    Base.metadata.create_all(engine)
    with Session(engine) as s, s.begin():
        s.execute(insert(Category), [{"pk": i, "name": n} for i, n in enumerate(data["categories"], 1)])
        s.execute(insert(Task), [
            {"id": uuid.UUID(hex=u), "title": title, "isCompleted": done, "priority": prio, "category_pk": cat,
             "createdAt": datetime.datetime.fromtimestamp(secs, datetime.timezone.utc)}
            for u, title, done, secs, prio, cat in data["tasks"]
        ])


def fetch(path: str, warmup: int, min_samples: int, min_seconds: float, max_samples: int) -> None:
    engine = engine_for(path)
    last: list = []

    def once():
        with Session(engine) as s:
            last[:] = s.scalars(select(Category).where(Category.tasks.any(Task.isCompleted == False))).all()  # noqa: E712

    r = sample(once, warmup, min_samples, min_seconds, max_samples)
    import sqlalchemy

    print(json.dumps({**r, "names": sorted(c.name for c in last), "sqlalchemy": sqlalchemy.__version__}))


if __name__ == "__main__":
    if sys.argv[1] == "build":
        build(sys.argv[2], sys.argv[3])
    else:
        fetch(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]), int(sys.argv[6]))
