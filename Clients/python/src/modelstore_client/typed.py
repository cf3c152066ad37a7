"""Entity descriptors and result shapes that make the client typed by entity.

``model.generate`` with target ``python`` writes, per entity, ``TypedDict``s of the object
as returned and of its values, and a descriptor: ``TaskEntity: Insertable[Task, TaskValues,
TaskUpdate] = Insertable("Task")`` (``Entity[Pet] = Entity("Pet")`` for an abstract entity).
Passing the descriptor where the client takes an entity name types the call: the values a
type checker accepts and the objects it returns. At run time a descriptor is only its name.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, Callable, Dict, Generic, List, TypeVar, Union

O = TypeVar("O")
V = TypeVar("V")
U = TypeVar("U")


class Entity(Generic[O]):
    """An entity whose objects are typed ``O`` (reads: fetch, get, observe, count, ids)."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


class Insertable(Entity[O], Generic[O, V, U]):
    """A concrete entity: also inserted with values ``V`` and updated with values ``U``."""

    __slots__ = ()


#: Values, or a function returning them (called just before the request is sent). The
#: function form is there for the type checker as much as for callers: mypy infers a
#: call's entity types before it checks a dict literal only when the parameter's type
#: mentions a callable, so every typo in a literal is checked against the entity's keys.
ValuesOf = Union[V, Callable[[], V]]


def entity_name(entity: Union[str, Entity[Any]]) -> str:
    """The wire name of an entity given by name or by descriptor."""
    return entity.name if isinstance(entity, Entity) else entity


def resolve_values(values: Any) -> Any:
    return values() if callable(values) else values


if TYPE_CHECKING or sys.version_info >= (3, 11):
    from typing import NotRequired, TypedDict

    class Fetched(TypedDict, Generic[O]):
        """``query.fetch``'s result: the page, and ``sections`` with ``section_by``."""

        objects: List[O]
        sections: NotRequired[List[Dict[str, Any]]]

    class Upserted(TypedDict, Generic[O]):
        """``objects.upsert``'s result: the object, and whether it was inserted."""

        object: O
        inserted: bool

    class Many(TypedDict, Generic[O]):
        """``objects.get`` with ``ids``: the objects in the order of the ids."""

        objects: List[O]

else:  # generic TypedDicts need Python 3.11 at run time; checkers read the branch above

    class Fetched(Dict[str, Any], Generic[O]):
        pass

    class Upserted(Dict[str, Any], Generic[O]):
        pass

    class Many(Dict[str, Any], Generic[O]):
        pass
