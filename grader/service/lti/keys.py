"""The platform's public keys (its JWKS), fetched with a timeout and a size limit, cached in
the tool's store, and fetched again early (at most once a minute) when a token names a key
the cached set lacks: the platform rotated its keys."""
from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

import requests

from .errors import LtiRefusal
from .storage import ConsumableStorage

MAX_JWKS = 256 * 1024


def digest(value: str) -> str:
    return hashlib.sha256(value.encode("utf-8")).hexdigest()


def fetch_key_set(session: requests.Session, storage: ConsumableStorage, url: str, ttl: int) -> dict[str, Any]:
    """The JWKS at ``url``, from the cache or the platform; LtiRefusal(502) when it cannot be had."""
    cache_key = "jwks-" + digest(url)
    cached = storage.get_value(cache_key)
    if cached:
        return dict(cached)
    where = f"the platform's key set {url}"
    try:
        with session.get(url, stream=True) as resp:
            if resp.status_code != 200:
                raise LtiRefusal(502, f"{where} answered HTTP {resp.status_code}")
            data = resp.raw.read(MAX_JWKS + 1, decode_content=True)
    except requests.RequestException as e:
        raise LtiRefusal(502, f"{where} could not be fetched ({type(e).__name__})") from None
    if len(data) > MAX_JWKS:
        raise LtiRefusal(502, f"{where} is larger than {MAX_JWKS // 1024} KiB")
    try:
        keys = json.loads(data)
    except ValueError:
        keys = None
    if (not isinstance(keys, dict) or not isinstance(keys.get("keys"), list)
            or not all(isinstance(k, dict) for k in keys["keys"])):
        raise LtiRefusal(502, f"{where} is not a JSON Web Key Set")
    storage.set_value(cache_key, keys, exp=ttl)
    return keys


def allow_refetch(storage: ConsumableStorage, url: str) -> bool:
    """Whether the key set may be fetched again now; if so, its cached copy is dropped."""
    guard = "jwks-refetch-" + digest(url)
    if storage.check_value(guard):  # at most once a minute, whatever kids the tokens name
        return False
    storage.set_value(guard, True, exp=60)
    storage.delete_value("jwks-" + digest(url))
    return True


def key_message(error: str, header: Mapping[str, Any]) -> str:
    """pylti1p3's key-selection errors, said for the launch's refusal."""
    kid = header.get("kid")
    if error == "JWT KID not found":
        return "the id_token's header has no kid: the platform's key cannot be chosen"
    if error == "Unable to find public key":
        return f"the platform's key set has no key {kid!r} for {header.get('alg')!r}"
    return f"the platform's key {kid!r} is unusable"
