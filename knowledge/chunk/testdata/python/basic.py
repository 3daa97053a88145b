#!/usr/bin/env python3
"""Shapes, with awkward corners.

class NotAClass:
def not_a_function():
"""

import functools
from typing import (
    Any,
    Dict,
)

LIMIT = 10  # def in a comment
TABLE = {
    "def": 1,
    "class": 2,
}


# Decorates things.
@functools.lru_cache(
    maxsize=None,
)
@staticmethod
def area(side: float) -> float:
    """Return side squared: "{" and '}' are fine."""
    x = side * side
# a comment at column 0 inside the body
    return x


async def fetch(url):
    s = '''
def inner_fake():
    pass
'''
    return s


class Shape:
    """A shape."""

    class Meta:
        ordering = ["name"]

    def __init__(self, name):
        self.name = name \
            + "!"

    @property
    def label(self):
        return f"{self.name}: {{literal}}"


def after_class(): return 1

if __name__ == "__main__":
    print(area(2))
