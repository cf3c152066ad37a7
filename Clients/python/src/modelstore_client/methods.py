"""Thin, typed wrappers named after the protocol methods.

They exist so callers get keyword arguments and editor completion instead
of hand-building params dicts; each returns the raw ``result`` unchanged.
Python snake_case arguments become the protocol's camelCase keys, and
arguments left as None are omitted from the params.
"""

from __future__ import annotations

import logging
from contextlib import contextmanager
from typing import Any, Dict, Iterator, List, Mapping, Optional, Sequence

JSONObject = Dict[str, Any]

log = logging.getLogger("modelstore_client")

CLIENT_NAME = "modelstore-client-python"


def _params(**fields: Any) -> JSONObject:
    """Build a params object, dropping None values."""
    return {key: value for key, value in fields.items() if value is not None}


class StoreMethods:
    """Mixin: protocol wrappers on top of an abstract ``call``."""

    def call(
        self,
        method: str,
        params: Optional[Mapping[str, Any]] = None,
        *,
        timeout: Optional[float] = None,
    ) -> Any:
        raise NotImplementedError

    # -------------------------------------------------------------- session

    def initialize(
        self,
        client_info: Optional[Mapping[str, Any]] = None,
        capabilities: Optional[Mapping[str, Any]] = None,
    ) -> Any:
        """Handshake; client_info defaults to this package's name and version."""
        if client_info is None:
            from . import __version__

            client_info = {"name": CLIENT_NAME, "version": __version__}
        return self.call(
            "initialize", _params(clientInfo=client_info, capabilities=capabilities)
        )

    # ---------------------------------------------------------------- store

    def store_open(
        self,
        path: Optional[str] = None,
        memory: bool = False,
        read_only: bool = False,
        create: bool = True,
    ) -> Any:
        return self.call(
            "store.open",
            _params(path=path, memory=memory, readOnly=read_only, create=create),
        )

    def store_info(self) -> Any:
        return self.call("store.info")

    def store_backup(self, to: str) -> Any:
        return self.call("store.backup", {"to": to})

    def store_check(self) -> Any:
        return self.call("store.check")

    # ---------------------------------------------------------------- model

    def model_define(self, schema: Mapping[str, Any]) -> Any:
        return self.call("model.define", {"schema": schema})

    def model_get(self) -> Any:
        return self.call("model.get")

    def model_validate(self, schema: Mapping[str, Any]) -> Any:
        return self.call("model.validate", {"schema": schema})

    # -------------------------------------------------------------- objects

    def insert(self, entity: str, values: Mapping[str, Any]) -> Any:
        return self.call("objects.insert", {"entity": entity, "values": values})

    def update(self, id: str, values: Mapping[str, Any]) -> Any:
        return self.call("objects.update", {"id": id, "values": values})

    def upsert(
        self,
        entity: str,
        values: Mapping[str, Any],
        on: Optional[Sequence[str]] = None,
    ) -> Any:
        return self.call(
            "objects.upsert",
            _params(entity=entity, values=values, on=_list(on)),
        )

    def delete(self, id: str) -> Any:
        return self.call("objects.delete", {"id": id})

    def get(self, id: str, include: Optional[Sequence[str]] = None) -> Any:
        return self.call("objects.get", _params(id=id, include=_list(include)))

    def get_many(self, ids: Sequence[str], include: Optional[Sequence[str]] = None) -> Any:
        return self.call("objects.get", _params(ids=list(ids), include=_list(include)))

    def update_where(
        self,
        entity: str,
        where: str,
        values: Mapping[str, Any],
        args: Optional[Sequence[Any]] = None,
    ) -> Any:
        return self.call(
            "objects.updateWhere",
            _params(entity=entity, where=where, values=values, args=_list(args)),
        )

    def delete_where(
        self, entity: str, where: str, args: Optional[Sequence[Any]] = None
    ) -> Any:
        return self.call(
            "objects.deleteWhere", _params(entity=entity, where=where, args=_list(args))
        )

    def save(self, changes: Sequence[Mapping[str, Any]], author: Optional[str] = None) -> Any:
        return self.call("context.save", _params(changes=list(changes), author=author))

    # ---------------------------------------------------------- transactions

    def begin(self) -> Any:
        return self.call("transaction.begin")

    def commit(self) -> Any:
        return self.call("transaction.commit")

    def rollback(self) -> Any:
        return self.call("transaction.rollback")

    @contextmanager
    def transaction(self) -> Iterator["StoreMethods"]:
        """Begin; commit if the block succeeds, roll back if it raises."""
        self.begin()
        try:
            yield self
        except BaseException:
            try:
                self.rollback()
            except Exception as rollback_error:  # keep the original error visible
                log.warning("rollback failed: %s", rollback_error)
            raise
        self.commit()

    # ---------------------------------------------------------------- query

    def fetch(
        self,
        entity: str,
        where: Optional[str] = None,
        args: Optional[Sequence[Any]] = None,
        sort: Optional[Sequence[Mapping[str, Any]]] = None,
        limit: Optional[int] = None,
        offset: Optional[int] = None,
        include: Optional[Sequence[str]] = None,
        select: Optional[Sequence[str]] = None,
        include_subentities: Optional[bool] = None,
        section_by: Optional[Any] = None,
    ) -> Any:
        """``section_by``: a key path or ``{keyPath, bucket, timeZone}``; the result
        then has ``sections`` ([{key, count, range}])."""
        return self.call(
            "query.fetch",
            _params(
                entity=entity,
                where=where,
                args=_list(args),
                sort=_list(sort),
                limit=limit,
                offset=offset,
                include=_list(include),
                select=_list(select),
                includeSubentities=include_subentities,
                sectionBy=section_by,
            ),
        )

    def count(
        self, entity: str, where: Optional[str] = None, args: Optional[Sequence[Any]] = None
    ) -> Any:
        return self.call("query.count", _params(entity=entity, where=where, args=_list(args)))

    def query_parse(
        self,
        where: Any,
        args: Optional[Sequence[Any]] = None,
        variables: Optional[Mapping[str, Any]] = None,
        template: Optional[bool] = None,
    ) -> Any:
        """``query.parse``: the JSON form of ``where`` (text or JSON form) as ``{predicate}``;
        with ``template=True`` unbound ``%@``/``%K``/``$NAME`` stay placeholder nodes."""
        return self.call(
            "query.parse",
            _params(where=where, args=_list(args), variables=variables, template=template),
        )

    def aggregate(
        self,
        entity: str,
        aggregates: Sequence[Mapping[str, Any]],
        group_by: Optional[Sequence[Any]] = None,
        where: Optional[str] = None,
        args: Optional[Sequence[Any]] = None,
        having: Optional[str] = None,
        sort: Optional[Sequence[Any]] = None,
        limit: Optional[int] = None,
        offset: Optional[int] = None,
        include_subentities: Optional[bool] = None,
    ) -> Any:
        """``query.aggregate``: returns ``{groups: [{key, values}]}``."""
        return self.call(
            "query.aggregate",
            _params(
                entity=entity,
                where=where,
                args=_list(args),
                groupBy=_list(group_by),
                aggregates=list(aggregates),
                having=having,
                sort=_list(sort),
                limit=limit,
                offset=offset,
                includeSubentities=include_subentities,
            ),
        )

    # -- interchange ----------------------------------------------------------

    def export_json(
        self,
        entities: Optional[Sequence[str]] = None,
        where: Any = None,
        args: Optional[Sequence[Any]] = None,
        format: Optional[str] = None,
        path: Optional[str] = None,
        progress_token: Optional[Any] = None,
    ) -> Any:
        """``export.json``: ``{format, objects, counts, bytes}`` plus ``path`` (written to a
        new file) or ``data`` (the export's text, inline below 8 MiB)."""
        return self.call(
            "export.json",
            _params(
                entities=_list(entities),
                where=where,
                args=_list(args),
                format=format,
                path=path,
                progressToken=progress_token,
            ),
        )

    def import_json(
        self,
        path: Optional[str] = None,
        data: Optional[str] = None,
        mode: Optional[str] = None,
        progress_token: Optional[Any] = None,
    ) -> Any:
        """``import.json`` of a file (``path``) or an export's text (``data``), all or nothing;
        ``mode`` is ``insert`` (default), ``upsert`` or ``replace``."""
        return self.call(
            "import.json", _params(path=path, data=data, mode=mode, progressToken=progress_token)
        )


def _list(value: Optional[Sequence[Any]]) -> Optional[List[Any]]:
    """Tuples and other sequences go on the wire as JSON arrays."""
    return list(value) if value is not None else None
