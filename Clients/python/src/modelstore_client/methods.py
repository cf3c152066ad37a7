"""Thin, typed wrappers named after the protocol methods.

They exist so callers get keyword arguments and editor completion instead
of hand-building params dicts; each returns the raw ``result`` unchanged.
Python snake_case arguments become the protocol's camelCase keys, and
arguments left as None are omitted from the params.
"""

from __future__ import annotations

import logging
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterator, List, Literal, Mapping, Optional, Sequence, Union, overload

from .typed import Entity, Fetched, Insertable, Many, O, U, Upserted, V, ValuesOf, entity_name, resolve_values

if TYPE_CHECKING:
    from .live import LiveQuery
    from .values import SchemaTypes

JSONObject = Dict[str, Any]

#: How returned objects carry their to-many relationships (protocol.md, the object
#: shape): left out (``"none"``, the server's default), as arrays of ids, or as counts.
ToMany = Literal["none", "ids", "count"]

#: A predicate: NSPredicate-format text, or its JSON form (protocol.md, "The JSON form").
Predicate = Union[str, Mapping[str, Any]]

#: A sort key: a key path (ascending), or ``{"key", "ascending", "caseInsensitive"}``.
SortKey = Union[str, Mapping[str, Any]]

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

    def _objects(self, method: str, params: Mapping[str, Any], shape: str, timeout: Optional[float] = None) -> Any:
        """A request whose result carries objects of ``shape`` (values.RESULT_SHAPES);
        a client converts their values (Client does, by the store's schema)."""
        return self.call(method, params, timeout=timeout)

    def _schema_call(self, method: str, params: Optional[Mapping[str, Any]], timeout: Optional[float] = None) -> Any:
        """A request that may change the store's schema (a client then reads it anew)."""
        return self.call(method, params, timeout=timeout)

    def _converter(self, objects: Sequence[Any]) -> Optional["SchemaTypes"]:
        """What converts the values of ``objects`` (None: they stay as on the wire)."""
        return None

    # -------------------------------------------------------------- session

    def initialize(
        self,
        client_info: Optional[Mapping[str, Any]] = None,
        capabilities: Optional[Mapping[str, Any]] = None,
        author: Optional[str] = None,
        initialization_options: Optional[Mapping[str, Any]] = None,
    ) -> Any:
        """Handshake; client_info defaults to this package's name and version; ``author``
        is recorded in the history for this session's commits;
        ``initialization_options={"logMessages": "warning"}`` asks for the server's log
        lines of that level as ``window/logMessage`` notifications."""
        if client_info is None:
            from . import __version__

            client_info = {"name": CLIENT_NAME, "version": __version__}
        return self.call(
            "initialize",
            _params(
                clientInfo=client_info,
                capabilities=capabilities,
                author=author,
                initializationOptions=initialization_options,
            ),
        )

    # ---------------------------------------------------------------- store

    def store_open(
        self,
        path: Optional[str] = None,
        memory: bool = False,
        read_only: bool = False,
        create: bool = True,
        format: Optional[str] = None,
        model: Optional[str] = None,
        history_retention: Optional[str] = None,
        model_version: Optional[str] = None,
        version_order: Optional[Sequence[str]] = None,
    ) -> Any:
        """``store.open``; ``format="coredata"`` (with ``read_only=True``) browses a Core Data
        SQLite store in place, ``model`` naming its ``.xcdatamodeld`` for exact names (and
        ``model_version`` the version the store was written with, ``version_order`` its
        versions oldest first); ``history_retention`` (``"100000"``, ``"7d"``) bounds the
        history this process keeps."""
        return self._schema_call(
            "store.open",
            _params(
                path=path,
                memory=memory,
                readOnly=read_only,
                create=None if format == "coredata" else create,
                format=format,
                model=model,
                historyRetention=history_retention,
                modelVersion=model_version,
                versionOrder=_list(version_order),
            ),
        )

    def store_info(self) -> Any:
        return self.call("store.info")

    def store_backup(self, to: str) -> Any:
        return self.call("store.backup", {"to": to})

    def store_check(self) -> Any:
        return self.call("store.check")

    # ---------------------------------------------------------------- model

    def model_define(self, schema: Mapping[str, Any], timeout: Optional[float] = None) -> Any:
        return self._schema_call("model.define", {"schema": schema}, timeout=timeout)

    def model_get(self) -> Any:
        return self.call("model.get")

    def model_validate(self, schema: Mapping[str, Any]) -> Any:
        return self.call("model.validate", {"schema": schema})

    def model_diff(
        self, to: Mapping[str, Any], from_: Optional[Mapping[str, Any]] = None
    ) -> Any:
        """``model.diff``: the changes from ``from_`` (default: the store's schema) to ``to``."""
        return self.call("model.diff", _params(to=to, **{"from": from_}))

    # ----------------------------------------------------------- migrations

    def migration_status(self, schema: Optional[Mapping[str, Any]] = None) -> Any:
        return self.call("migration.status", _params(schema=schema))

    def migration_plan(
        self,
        schemas: Sequence[Mapping[str, Any]],
        stages: Optional[Sequence[Mapping[str, Any]]] = None,
        allow_data_loss: Optional[bool] = None,
    ) -> Any:
        """A dry run of :meth:`migration_apply`: exact steps, rows and data loss."""
        return self.call(
            "migration.plan",
            _params(schemas=list(schemas), stages=_list(stages), allowDataLoss=allow_data_loss),
        )

    def migration_apply(
        self,
        schemas: Sequence[Mapping[str, Any]],
        stages: Optional[Sequence[Mapping[str, Any]]] = None,
        allow_data_loss: Optional[bool] = None,
        backup: Optional[bool] = None,
        progress_token: Optional[Any] = None,
        will_migrate: Optional[Callable[[Any], Any]] = None,
        did_migrate: Optional[Callable[[Any], Any]] = None,
        timeout: Optional[float] = None,
    ) -> Any:
        """Run the chain's stages from the store's version to the last.

        ``will_migrate`` / ``did_migrate`` answer the server's
        ``migration/willMigrate`` / ``migration/didMigrate`` requests for custom
        stages that ask for them (the session must have called
        ``initialize(capabilities={"migrationHooks": True})``). They get the
        params ``{from, to, schema}`` and may call any method of this client
        against the store in its intermediate state; raising rolls the stage back.
        """
        params = _migration_apply_params(schemas, stages, allow_data_loss, backup, progress_token)
        with _migration_hooks(self, will_migrate, did_migrate):
            return self._schema_call("migration.apply", params, timeout=timeout)

    def on_request(self, method: str, handler: Optional[Callable[[Any], Any]]) -> None:
        raise NotImplementedError

    # ------------------------------------------------------ Core Data models

    def model_import_xcdatamodel(
        self,
        path: Optional[str] = None,
        xml: Optional[str] = None,
        name: Optional[str] = None,
        version_order: Optional[Sequence[str]] = None,
    ) -> Any:
        """Reads a Core Data model: a .xcdatamodeld / .xcdatamodel / contents path
        (read by the server) or the text of a contents file (xml). ``version_order`` gives
        the bundle's versions oldest first (else they are ordered by their names)."""
        return self.call(
            "model.importXcdatamodel", _params(path=path, xml=xml, name=name, versionOrder=_list(version_order))
        )

    def model_audit(
        self,
        path: Optional[str] = None,
        xml: Optional[str] = None,
        schema: Optional[Mapping[str, Any]] = None,
        name: Optional[str] = None,
        cloud_kit: Optional[bool] = None,
        compare_with: Optional[Any] = None,
        version_order: Optional[Sequence[str]] = None,
    ) -> Any:
        """SwiftData migration assessment of a model; compare_with (a path or a
        schema) adds the coexistence check."""
        return self.call(
            "model.audit",
            _params(
                path=path,
                xml=xml,
                schema=schema,
                name=name,
                cloudKit=cloud_kit,
                compareWith=compare_with,
                versionOrder=_list(version_order),
            ),
        )

    def model_generate(
        self,
        target: str,
        path: Optional[str] = None,
        xml: Optional[str] = None,
        schema: Optional[Mapping[str, Any]] = None,
        name: Optional[str] = None,
        base_name: Optional[str] = None,
        version_order: Optional[Sequence[str]] = None,
    ) -> Any:
        """Source code for a model: target is swiftdata, coredata, typescript or python."""
        return self.call(
            "model.generate",
            _params(
                target=target,
                path=path,
                xml=xml,
                schema=schema,
                name=name,
                baseName=base_name,
                versionOrder=_list(version_order),
            ),
        )

    def model_diagram(
        self,
        format: Optional[Literal["mermaid", "dot", "svg"]] = None,
        path: Optional[str] = None,
        xml: Optional[str] = None,
        schema: Optional[Mapping[str, Any]] = None,
        name: Optional[str] = None,
        version: Optional[str] = None,
        from_: Optional[Union[str, Mapping[str, Any]]] = None,
        to: Optional[Union[str, Mapping[str, Any]]] = None,
        measure: Optional[bool] = None,
        version_order: Optional[Sequence[str]] = None,
    ) -> Any:
        """``model.diagram``: an entity-relationship diagram as Mermaid, DOT or SVG text
        (``{format, kind, version?, from?, to?, text, dataLoss?}``). The model is the
        open store's unless path, xml or schema is given; ``from_`` / ``to`` (a version
        name or a schema) draw a migration, ``measure=True`` marks the data it drops;
        ``version_order`` orders the versions of the bundle ``path`` names."""
        return self.call(
            "model.diagram",
            _params(
                format=format,
                path=path,
                xml=xml,
                schema=schema,
                name=name,
                version=version,
                to=to,
                measure=measure,
                versionOrder=_list(version_order),
                **{"from": from_},
            ),
        )

    # -------------------------------------------------------------- objects

    # Every method returning objects takes ``to_many`` (``ToMany``): to-many
    # relationships are left out unless it asks for ``"ids"`` or ``"count"``.

    # Each of insert, update, upsert, get, get_many, fetch and observe also takes an
    # entity descriptor of generated code (typed.Entity / typed.Insertable) and is then
    # typed by it: the values a type checker accepts and the objects it returns.

    @overload
    def insert(self, entity: Insertable[O, V, U], values: ValuesOf[V], to_many: Optional[ToMany] = None) -> O: ...
    @overload
    def insert(self, entity: str, values: Mapping[str, Any], to_many: Optional[ToMany] = None) -> Any: ...
    def insert(self, entity: Union[str, Entity[Any]], values: Any, to_many: Optional[ToMany] = None) -> Any:
        return self._objects(
            "objects.insert",
            _params(entity=entity_name(entity), values=resolve_values(values), toMany=to_many),
            "object",
        )

    @overload
    def update(
        self,
        id: str,
        values: ValuesOf[U],
        if_version: Optional[int] = None,
        to_many: Optional[ToMany] = None,
        *,
        entity: Insertable[O, V, U],
    ) -> O: ...
    @overload
    def update(
        self,
        id: str,
        values: Mapping[str, Any],
        if_version: Optional[int] = None,
        to_many: Optional[ToMany] = None,
        *,
        entity: None = None,
    ) -> Any: ...
    def update(
        self,
        id: str,
        values: Any,
        if_version: Optional[int] = None,
        to_many: Optional[ToMany] = None,
        *,
        entity: Optional[Entity[Any]] = None,
    ) -> Any:
        """``objects.update``; with ``if_version`` it fails with :class:`ConflictError`
        when the object changed since that version was read (``get(..., with_version=True)``).
        ``entity`` (a descriptor) only types the call."""
        return self._objects(
            "objects.update",
            _params(id=id, values=resolve_values(values), ifVersion=if_version, toMany=to_many),
            "object",
        )

    @overload
    def upsert(
        self,
        entity: Insertable[O, V, U],
        values: ValuesOf[V],
        on: Optional[Sequence[str]] = None,
        to_many: Optional[ToMany] = None,
    ) -> Upserted[O]: ...
    @overload
    def upsert(
        self,
        entity: str,
        values: Mapping[str, Any],
        on: Optional[Sequence[str]] = None,
        to_many: Optional[ToMany] = None,
    ) -> Any: ...
    def upsert(
        self,
        entity: Union[str, Entity[Any]],
        values: Any,
        on: Optional[Sequence[str]] = None,
        to_many: Optional[ToMany] = None,
    ) -> Any:
        """``objects.upsert``: ``{object, inserted}``."""
        return self._objects(
            "objects.upsert",
            _params(entity=entity_name(entity), values=resolve_values(values), on=_list(on), toMany=to_many),
            "upserted",
        )

    def delete(self, id: str, dry_run: Optional[bool] = None) -> Any:
        """``objects.delete``: ``{deleted}``; with ``dry_run=True`` nothing is deleted and
        the result is what the delete would do, ``{deleted, updated}`` (or its error)."""
        return self.call("objects.delete", _params(id=id, dryRun=dry_run))

    @overload
    def get(
        self,
        id: str,
        include: Optional[Sequence[str]] = None,
        with_version: Optional[bool] = None,
        to_many: Optional[ToMany] = None,
        *,
        entity: Entity[O],
    ) -> O: ...
    @overload
    def get(
        self,
        id: str,
        include: Optional[Sequence[str]] = None,
        with_version: Optional[bool] = None,
        to_many: Optional[ToMany] = None,
        *,
        entity: None = None,
    ) -> Any: ...
    def get(
        self,
        id: str,
        include: Optional[Sequence[str]] = None,
        with_version: Optional[bool] = None,
        to_many: Optional[ToMany] = None,
        *,
        entity: Optional[Entity[Any]] = None,
    ) -> Any:
        """``objects.get`` of one object; ``entity`` (a descriptor) only types the call."""
        return self._objects(
            "objects.get",
            _params(id=id, include=_list(include), withVersion=with_version, toMany=to_many),
            "object",
        )

    @overload
    def get_many(
        self,
        ids: Sequence[str],
        include: Optional[Sequence[str]] = None,
        to_many: Optional[ToMany] = None,
        *,
        entity: Entity[O],
    ) -> Many[O]: ...
    @overload
    def get_many(
        self,
        ids: Sequence[str],
        include: Optional[Sequence[str]] = None,
        to_many: Optional[ToMany] = None,
        *,
        entity: None = None,
    ) -> Any: ...
    def get_many(
        self,
        ids: Sequence[str],
        include: Optional[Sequence[str]] = None,
        to_many: Optional[ToMany] = None,
        *,
        entity: Optional[Entity[Any]] = None,
    ) -> Any:
        """``objects.get`` of several: ``{objects}`` in the order of ``ids``."""
        return self._objects("objects.get", _params(ids=list(ids), include=_list(include), toMany=to_many), "objects")

    def update_where(
        self,
        entity: Union[str, Entity[Any]],
        where: Optional[Predicate],
        values: Mapping[str, Any],
        args: Optional[Sequence[Any]] = None,
        variables: Optional[Mapping[str, Any]] = None,
        include_subentities: Optional[bool] = None,
    ) -> Any:
        """``objects.updateWhere``; ``where=None`` updates every object of ``entity``."""
        return self.call(
            "objects.updateWhere",
            _params(
                entity=entity_name(entity),
                where=where,
                values=values,
                args=_list(args),
                variables=variables,
                includeSubentities=include_subentities,
            ),
        )

    def delete_where(
        self,
        entity: Union[str, Entity[Any]],
        where: Optional[Predicate],
        args: Optional[Sequence[Any]] = None,
        variables: Optional[Mapping[str, Any]] = None,
        include_subentities: Optional[bool] = None,
    ) -> Any:
        """``objects.deleteWhere``; ``where=None`` deletes every object of ``entity``."""
        return self.call(
            "objects.deleteWhere",
            _params(
                entity=entity_name(entity),
                where=where,
                args=_list(args),
                variables=variables,
                includeSubentities=include_subentities,
            ),
        )

    def save(self, changes: Sequence[Mapping[str, Any]], author: Optional[str] = None) -> Any:
        return self.call("context.save", _params(changes=list(changes), author=author))

    # ---------------------------------------------------------- transactions

    def begin(self) -> Any:
        return self.call("transaction.begin")

    def commit(self) -> Any:
        return self.call("transaction.commit")

    def rollback(self) -> Any:
        return self._schema_call("transaction.rollback", None)

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

    @overload
    def fetch(
        self,
        entity: Entity[O],
        where: Optional[Predicate] = None,
        args: Optional[Sequence[Any]] = None,
        sort: Optional[Sequence[SortKey]] = None,
        limit: Optional[int] = None,
        offset: Optional[int] = None,
        include: Optional[Sequence[str]] = None,
        select: Optional[Sequence[str]] = None,
        include_subentities: Optional[bool] = None,
        section_by: Optional[Any] = None,
        to_many: Optional[ToMany] = None,
        variables: Optional[Mapping[str, Any]] = None,
    ) -> Fetched[O]: ...
    @overload
    def fetch(
        self,
        entity: str,
        where: Optional[Predicate] = None,
        args: Optional[Sequence[Any]] = None,
        sort: Optional[Sequence[SortKey]] = None,
        limit: Optional[int] = None,
        offset: Optional[int] = None,
        include: Optional[Sequence[str]] = None,
        select: Optional[Sequence[str]] = None,
        include_subentities: Optional[bool] = None,
        section_by: Optional[Any] = None,
        to_many: Optional[ToMany] = None,
        variables: Optional[Mapping[str, Any]] = None,
    ) -> Any: ...
    def fetch(
        self,
        entity: Union[str, Entity[Any]],
        where: Optional[Predicate] = None,
        args: Optional[Sequence[Any]] = None,
        sort: Optional[Sequence[SortKey]] = None,
        limit: Optional[int] = None,
        offset: Optional[int] = None,
        include: Optional[Sequence[str]] = None,
        select: Optional[Sequence[str]] = None,
        include_subentities: Optional[bool] = None,
        section_by: Optional[Any] = None,
        to_many: Optional[ToMany] = None,
        variables: Optional[Mapping[str, Any]] = None,
    ) -> Any:
        """``section_by``: a key path or ``{keyPath, bucket, timeZone}``; the result
        then has ``sections`` ([{key, count, range}]). ``to_many``: ``"ids"`` or
        ``"count"`` to receive the to-many relationships ``select`` does not name."""
        return self._objects(
            "query.fetch",
            _params(
                entity=entity_name(entity),
                where=where,
                args=_list(args),
                variables=variables,
                sort=_list(sort),
                limit=limit,
                offset=offset,
                include=_list(include),
                select=_list(select),
                includeSubentities=include_subentities,
                sectionBy=section_by,
                toMany=to_many,
            ),
            "objects",
        )

    @overload
    def observe(
        self,
        entity: Entity[O],
        where: Optional[Predicate] = None,
        args: Optional[Sequence[Any]] = None,
        sort: Optional[Sequence[SortKey]] = None,
        limit: Optional[int] = None,
        select: Optional[Sequence[str]] = None,
        section_by: Optional[Any] = None,
        callback: Optional[Callable[[Any, Dict[str, Any]], Any]] = None,
        to_many: Optional[ToMany] = None,
        variables: Optional[Mapping[str, Any]] = None,
        offset: Optional[int] = None,
        include: Optional[Sequence[str]] = None,
        include_subentities: Optional[bool] = None,
    ) -> "LiveQuery[O]": ...
    @overload
    def observe(
        self,
        entity: str,
        where: Optional[Predicate] = None,
        args: Optional[Sequence[Any]] = None,
        sort: Optional[Sequence[SortKey]] = None,
        limit: Optional[int] = None,
        select: Optional[Sequence[str]] = None,
        section_by: Optional[Any] = None,
        callback: Optional[Callable[[Any, Dict[str, Any]], Any]] = None,
        to_many: Optional[ToMany] = None,
        variables: Optional[Mapping[str, Any]] = None,
        offset: Optional[int] = None,
        include: Optional[Sequence[str]] = None,
        include_subentities: Optional[bool] = None,
    ) -> "LiveQuery[Any]": ...
    def observe(
        self,
        entity: Union[str, Entity[Any]],
        where: Optional[Predicate] = None,
        args: Optional[Sequence[Any]] = None,
        sort: Optional[Sequence[SortKey]] = None,
        limit: Optional[int] = None,
        select: Optional[Sequence[str]] = None,
        section_by: Optional[Any] = None,
        callback: Optional[Callable[[Any, Dict[str, Any]], Any]] = None,
        to_many: Optional[ToMany] = None,
        variables: Optional[Mapping[str, Any]] = None,
        offset: Optional[int] = None,
        include: Optional[Sequence[str]] = None,
        include_subentities: Optional[bool] = None,
    ) -> Any:
        """``query.observe``: a :class:`~modelstore_client.live.LiveQuery` whose
        ``objects`` follow every commit (of any process on the store), applied in stream
        order; ``callback(live, change)`` runs after each change, ``wait_for(token,
        timeout)`` waits for a commit, and ``next_change()`` / iterating read each change
        once."""
        params = _params(
            entity=entity_name(entity),
            where=where,
            args=_list(args),
            variables=variables,
            sort=_list(sort),
            limit=limit,
            offset=offset,
            select=_list(select),
            include=_list(include),
            includeSubentities=include_subentities,
            sectionBy=section_by,
            toMany=to_many,
        )
        return self._live_query(params, callback)

    def _live_query(self, params: Dict[str, Any], callback: Optional[Callable[[Any, Dict[str, Any]], Any]]) -> Any:
        from .live import LiveQuery

        return LiveQuery(self, callback)._start(params)

    def history(
        self,
        after: Optional[int] = None,
        author: Optional[str] = None,
        entities: Optional[Sequence[str]] = None,
        limit: Optional[int] = None,
    ) -> Any:
        """``history.fetch``: ``{transactions: [{token, timestamp, author, changes}], lastToken}``."""
        return self.call(
            "history.fetch", _params(after=after, author=author, entities=_list(entities), limit=limit)
        )

    def delete_history(self, before: int) -> Any:
        return self.call("history.delete", {"before": before})

    def count(
        self,
        entity: Union[str, Entity[Any]],
        where: Optional[Predicate] = None,
        args: Optional[Sequence[Any]] = None,
        variables: Optional[Mapping[str, Any]] = None,
        include_subentities: Optional[bool] = None,
    ) -> Any:
        return self.call(
            "query.count",
            _params(
                entity=entity_name(entity),
                where=where,
                args=_list(args),
                variables=variables,
                includeSubentities=include_subentities,
            ),
        )

    def ids(
        self,
        entity: Union[str, Entity[Any]],
        where: Optional[Predicate] = None,
        args: Optional[Sequence[Any]] = None,
        variables: Optional[Mapping[str, Any]] = None,
        sort: Optional[Sequence[SortKey]] = None,
        limit: Optional[int] = None,
        offset: Optional[int] = None,
        include_subentities: Optional[bool] = None,
    ) -> Any:
        """``query.ids``: ``{ids}`` of the matching objects, in sort order."""
        return self.call(
            "query.ids",
            _params(
                entity=entity_name(entity),
                where=where,
                args=_list(args),
                variables=variables,
                sort=_list(sort),
                limit=limit,
                offset=offset,
                includeSubentities=include_subentities,
            ),
        )

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
        entity: Union[str, Entity[Any]],
        aggregates: Sequence[Mapping[str, Any]],
        group_by: Optional[Sequence[Any]] = None,
        where: Optional[Predicate] = None,
        args: Optional[Sequence[Any]] = None,
        having: Optional[str] = None,
        sort: Optional[Sequence[SortKey]] = None,
        limit: Optional[int] = None,
        offset: Optional[int] = None,
        include_subentities: Optional[bool] = None,
        variables: Optional[Mapping[str, Any]] = None,
    ) -> Any:
        """``query.aggregate``: returns ``{groups: [{key, values}]}``."""
        return self.call(
            "query.aggregate",
            _params(
                entity=entity_name(entity),
                where=where,
                args=_list(args),
                variables=variables,
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
        where: Optional[Predicate] = None,
        args: Optional[Sequence[Any]] = None,
        format: Optional[str] = None,
        path: Optional[str] = None,
        progress_token: Optional[Any] = None,
        with_related: Optional[bool] = None,
        variables: Optional[Mapping[str, Any]] = None,
        timeout: Optional[float] = None,
    ) -> Any:
        """``export.json``: ``{format, objects, counts, bytes}`` plus ``path`` (written to a
        new file) or ``data`` (the export's text, inline below 8 MiB). ``with_related``
        adds every object the chosen ones reach, so the file is closed."""
        return self.call(
            "export.json",
            _params(
                entities=_list(entities),
                where=where,
                args=_list(args),
                variables=variables,
                format=format,
                path=path,
                progressToken=progress_token,
                withRelated=with_related,
            ),
            timeout=timeout,
        )

    def import_json(
        self,
        path: Optional[str] = None,
        data: Optional[str] = None,
        mode: Optional[str] = None,
        progress_token: Optional[Any] = None,
        timeout: Optional[float] = None,
    ) -> Any:
        """``import.json`` of a file (``path``) or an export's text (``data``), all or nothing;
        ``mode`` is ``insert`` (default), ``upsert`` or ``replace``."""
        return self._schema_call(
            "import.json", _params(path=path, data=data, mode=mode, progressToken=progress_token), timeout=timeout
        )

    def import_core_data(
        self,
        store: str,
        model: Optional[str] = None,
        progress_token: Optional[Any] = None,
        timeout: Optional[float] = None,
        model_version: Optional[str] = None,
        version_order: Optional[Sequence[str]] = None,
    ) -> Any:
        """``import.coreData``: copies the Core Data SQLite store at ``store`` into the open
        store, all or nothing; ``{objects, counts, links, schemaDefined, skipped, warnings,
        source}``. ``model`` (a ``.xcdatamodeld``) gives exact names instead of inferred ones;
        ``model_version`` names the version the store was written with (else the one that fits
        is used: ``source["modelVersion"]`` says which and why)."""
        return self._schema_call(
            "import.coreData",
            _params(
                store=store,
                model=model,
                progressToken=progress_token,
                modelVersion=model_version,
                versionOrder=_list(version_order),
            ),
            timeout=timeout,
        )


def _migration_apply_params(
    schemas: Sequence[Mapping[str, Any]],
    stages: Optional[Sequence[Mapping[str, Any]]],
    allow_data_loss: Optional[bool],
    backup: Optional[bool],
    progress_token: Optional[Any],
) -> JSONObject:
    """``migration.apply``'s params (the sync and the async client's)."""
    return _params(
        schemas=list(schemas),
        stages=_list(stages),
        allowDataLoss=allow_data_loss,
        backup=backup,
        progressToken=progress_token,
    )


@contextmanager
def _migration_hooks(
    client: Any, will_migrate: Optional[Callable[[Any], Any]], did_migrate: Optional[Callable[[Any], Any]]
) -> Iterator[None]:
    """The migration hooks given answer the server's ``migration/willMigrate`` /
    ``migration/didMigrate`` requests while the block runs (an ``await`` inside it too)."""
    hooks = {"migration/willMigrate": will_migrate, "migration/didMigrate": did_migrate}
    for method, handler in hooks.items():
        if handler is not None:
            client.on_request(method, handler)
    try:
        yield
    finally:
        for method, handler in hooks.items():
            if handler is not None:
                client.on_request(method, None)


def _list(value: Optional[Sequence[Any]]) -> Optional[List[Any]]:
    """Tuples and other sequences go on the wire as JSON arrays."""
    return list(value) if value is not None else None
