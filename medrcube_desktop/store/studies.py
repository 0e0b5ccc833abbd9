"""Named agreement studies: a seeded sample of items (``studies``, ``study_items``)."""

from __future__ import annotations

from dataclasses import dataclass

from medrcube_desktop.errors import StoreError
from medrcube_desktop.store.base import StoreBase


@dataclass(frozen=True)
class StudyRecord:
    """A stored study: its name, seed, stratification and items in sampling order."""

    name: str
    seed: int
    stratify: str
    created_at: str
    item_ids: tuple[str, ...]


class StudyQueries(StoreBase):
    """Study queries (mixed into ``ReviewStore``)."""

    def save_study(
        self, name: str, seed: int, stratify: str, item_ids: list[str], when: str
    ) -> StudyRecord:
        """Create a study, or add items to an existing one (same seed and stratification).

        Items already in the study keep their position; new ones are appended in the
        order given. Raises StoreError when the name exists with another seed or
        stratification, or the write fails.
        """

        def write() -> StudyRecord:
            with self.conn:
                self.conn.execute("BEGIN IMMEDIATE")
                row = self.conn.execute(
                    "SELECT seed, stratify, created_at FROM studies WHERE name = ?", (name,)
                ).fetchone()
                if row is None:
                    self.conn.execute(
                        "INSERT INTO studies (name, seed, stratify, created_at) VALUES (?,?,?,?)",
                        (name, seed, stratify, when),
                    )
                elif (row[0], row[1]) != (seed, stratify):
                    raise StoreError(
                        f"study {name!r} exists with seed {row[0]} and stratify "
                        f"{row[1] or 'none'}: extend it with the same, or pick another name"
                    )
                have = {
                    r[0]
                    for r in self.conn.execute(
                        "SELECT item_id FROM study_items WHERE study = ?", (name,)
                    )
                }
                position = len(have)
                for item_id in item_ids:
                    if item_id not in have:
                        self.conn.execute(
                            "INSERT INTO study_items (study, item_id, position, added_at) "
                            "VALUES (?,?,?,?)",
                            (name, item_id, position, when),
                        )
                        have.add(item_id)
                        position += 1
            record = self.study(name)
            assert record is not None
            return record

        return self._read(write, f"save study {name}")

    def study(self, name: str) -> StudyRecord | None:
        """A study by name, or ``None`` (raises StoreError)."""

        def query() -> StudyRecord | None:
            row = self.conn.execute(
                "SELECT seed, stratify, created_at FROM studies WHERE name = ?", (name,)
            ).fetchone()
            if row is None:
                return None
            ids = tuple(
                r[0]
                for r in self.conn.execute(
                    "SELECT item_id FROM study_items WHERE study = ? ORDER BY position", (name,)
                )
            )
            return StudyRecord(name, int(row[0]), row[1], row[2], ids)

        return self._read(query, f"read study {name}")

    def study_names(self) -> list[str]:
        """Names of every study, oldest first (raises StoreError)."""
        return self._read(
            lambda: [
                r[0] for r in self.conn.execute("SELECT name FROM studies ORDER BY created_at")
            ],
            "list studies",
        )
