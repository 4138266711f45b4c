"""moto's reading of a JSON-protocol request (DynamoDB's, SQS's), made once per shape.

moto turns a request's JSON into its parameters by walking the operation's input shape at
every value, looking up each value's handler by name as it goes (`RequestParser._parse_shape`):
15% of moto's time on a call in the in-process tests (a 5-item transaction read in 250 us; 85
here). Here each shape's reader is built once, from the same handlers, and kept: a structure
keeps its modelled members that are not null, under their modelled names; a list and a map
read each of their values; blobs, timestamps, integers and floats are converted as moto's
parser converts them; anything else is kept as sent. A shape whose handler is not one of those
(a moto other than the one this was written for) is read by moto's own walk.
"""

from collections.abc import Callable
from typing import Any

from moto.core import parse

Reader = Callable[[Any], Any]


class _NotKnown(Exception):
    """A shape whose handler this module does not reproduce."""


def _kept(value: Any) -> Any:
    return value


def _number(convert: Callable[[Any], Any]) -> Reader:
    def read(value: Any) -> Any:
        return value if value is parse.UNDEFINED else convert(value)

    return read


class _Readers:
    """The readers of one operation's input shapes, for one parser's settings, by shape name
    (botocore makes a new shape object at each level of a shape that holds itself, as
    DynamoDB's values do, so identity would not end)."""

    def __init__(self, parser):
        self.kind = type(parser)
        self.map_type = parser.MAP_TYPE
        self.blob = parser._blob_parser
        self.timestamp = parser._timestamp_parser
        self.known: dict[str, Reader] = {}

    def of(self, shape) -> Reader:
        if shape.name in self.known:
            return self.known[shape.name]
        handler = getattr(self.kind, f"_parse_{shape.type_name}", None)
        if handler is None and self.kind._default_handle is parse.RequestParser._default_handle:
            reader = _kept
        elif handler is parse.BaseJSONParser._parse_structure:
            return self._structure(shape)
        elif handler is parse.RequestParser._parse_list:
            return self._list(shape)
        elif handler is parse.RequestParser._parse_map:
            return self._map(shape)
        elif handler is parse.BaseJSONParser._parse_blob:
            reader = self.blob
        elif handler is parse.BaseJSONParser._parse_timestamp:
            reader = self.timestamp
        elif handler is parse.BaseJSONParser._parse_integer:
            reader = _number(int)
        elif handler is parse.BaseJSONParser._parse_float:
            reader = _number(float)
        else:
            raise _NotKnown(shape.type_name)
        self.known[shape.name] = reader
        return reader

    # A list, a map or a structure is known before its parts are built: it may hold itself.

    def _structure(self, shape) -> Reader:
        if shape.is_document_type:
            self.known[shape.name] = _kept
            return _kept
        members: list[tuple[str, str, Reader]] = []
        map_type = self.map_type

        def read(value: Any) -> Any:
            if value is None:
                return None
            parsed = map_type()
            for name, sent_as, read_member in members:
                raw = value.get(sent_as)
                if raw is not None:
                    parsed[name] = read_member(raw)
            return parsed

        self.known[shape.name] = read
        for name, member in shape.members.items():
            members.append((name, member.serialization.get("name", name), self.of(member)))
        return read

    def _list(self, shape) -> Reader:
        member: list[Reader] = []

        def read(value: Any) -> list:
            read_member = member[0]
            return [read_member(item) for item in value]

        self.known[shape.name] = read
        member.append(self.of(shape.member))
        return read

    def _map(self, shape) -> Reader:
        parts: list[Reader] = []
        map_type = self.map_type

        def read(value: Any) -> Any:
            read_key, read_value = parts
            parsed = map_type()
            for key, item in value.items():
                parsed[read_key(key)] = read_value(item)
            return parsed

        self.known[shape.name] = read
        parts.extend((self.of(shape.key), self.of(shape.value)))
        return read


# By the parser's settings and the operation's input shape (made once per service model, as
# moto keeps one model per service).
_readers: dict[tuple, Reader | None] = {}


def reader(parser, shape) -> Reader | None:
    """The reader of `shape` for `parser`, or None where moto's own walk must read it."""
    key = (type(parser), parser.MAP_TYPE, parser._blob_parser, parser._timestamp_parser, shape)
    if key not in _readers:
        try:
            _readers[key] = _Readers(parser).of(shape)
        except _NotKnown:
            _readers[key] = None
    return _readers[key]


def parse_json_body(self, raw_body, shape):
    """`JSONParser._parse_json_body`, with the shape's reader built once."""
    read = reader(self, shape)
    if read is None:
        return self._parse_shape(shape, self._parse_body_as_json(raw_body))
    return read(self._parse_body_as_json(raw_body))
