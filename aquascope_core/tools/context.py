"""Where a tool's data comes from during a run: the named sources plus the user's uploads."""

from __future__ import annotations

from typing import Any, Mapping

from aquascope_core.errors import DataNotFoundError

__all__ = ["DataContext", "resolve"]


class DataContext:
    """The sources a run may read: the embedded catalogue's (and live ones when enabled) plus extras.

    ``extra`` maps a source name (``upload``) to an object with the source interface
    (``describe_station``, ``fetch_series``); it shadows a named source of the same name.
    """

    def __init__(self, extra: Mapping[str, Any] | None = None, *, live: bool = False) -> None:
        self.extra = dict(extra or {})
        self.live = live

    def source(self, name: str) -> Any:
        if name in self.extra:
            return self.extra[name]
        from aquascope_core.data import get_source

        try:
            return get_source(name, live=self.live) if self.live else get_source(name)
        except DataNotFoundError:
            raise
        except KeyError:
            raise DataNotFoundError(f"no data source named {name!r}", argument="source", value=name) from None

    def fetch_series(self, source: str, station_id: str, variable: str, start: str | None = None,
                     end: str | None = None):
        return self.source(source).fetch_series(station_id, variable, start=start, end=end)

    def describe_station(self, source: str, station_id: str) -> dict[str, Any]:
        return self.source(source).describe_station(station_id)


def resolve(data: DataContext | None) -> DataContext:
    return data if data is not None else DataContext()
