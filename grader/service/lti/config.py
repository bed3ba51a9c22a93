"""The tool's registrations with LTI platforms, read from a JSON file in pylti1p3's
``ToolConfJsonFile`` format, and the tool's RSA key pair.

The file maps each platform's issuer to one registration (an object) or several (a list of
objects, one per client_id)::

    {"https://canvas.instructure.com": {
        "client_id": "10000000000001",
        "auth_login_url": "https://sso.canvaslms.com/api/lti/authorize_redirect",
        "auth_token_url": "https://sso.canvaslms.com/login/oauth2/token",
        "key_set_url": "https://sso.canvaslms.com/api/lti/security/jwks",
        "private_key_file": "lti-private.pem", "public_key_file": "lti-public.pem",
        "deployment_ids": ["1:abc..."]}}

Key file paths are relative to the file's folder. Everything is checked at load, so that a
mistake is one line at start-up rather than a refused launch later."""
from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from pylti1p3.tool_config import ToolConfJsonFile

_REQUIRED = ("client_id", "auth_login_url", "auth_token_url", "deployment_ids", "private_key_file")


class LtiConfigError(Exception):
    """The configuration or a key file is unusable; the message is one line naming the file and the problem."""


@dataclass(frozen=True)
class PlatformRegistration:
    """One (issuer, client_id) registration: what a launch and a score need to know of the platform."""

    issuer: str
    client_id: str
    auth_login_url: str
    auth_token_url: str
    auth_audience: str | None
    key_set_url: str | None
    deployment_ids: tuple[str, ...]
    default: bool
    static_key_set: bool  # the platform's keys are pasted in the file (key_set): nothing to fetch


@dataclass(frozen=True)
class ToolConfig:
    """The parsed file: ``pylti`` is pylti1p3's view of it (registrations with their keys)."""

    path: Path
    pylti: ToolConfJsonFile
    registrations: tuple[PlatformRegistration, ...]

    def for_issuer(self, issuer: str) -> tuple[PlatformRegistration, ...]:
        return tuple(r for r in self.registrations if r.issuer == issuer)

    def find(self, issuer: str, client_id: str) -> PlatformRegistration | None:
        return next((r for r in self.for_issuer(issuer) if r.client_id == client_id), None)

    def jwks(self) -> dict[str, Any]:
        """The tool's public keys (every registration's, once each), as served at /lti/jwks."""
        return dict(self.pylti.get_jwks())


def _fail(path: Path, message: str) -> LtiConfigError:
    return LtiConfigError(f"LTI configuration {path}: {message}")


def _key_file(path: Path, issuer: str, entry: dict[str, Any], field: str, private: bool) -> str:
    name = entry[field]
    if not isinstance(name, str) or not name:
        raise _fail(path, f"{field} of issuer {issuer!r} must be a file name")
    key_path = Path(name) if os.path.isabs(name) else path.parent / name
    try:
        data = key_path.read_bytes()
    except FileNotFoundError:
        raise _fail(path, f"{field} of issuer {issuer!r}: {key_path} not found") from None
    except OSError as e:
        raise _fail(path, f"{field} of issuer {issuer!r}: cannot read {key_path} ({e.strerror})") from None
    try:
        key = (serialization.load_pem_private_key(data, password=None) if private
               else serialization.load_pem_public_key(data))
    except (ValueError, TypeError):
        kind = "an unencrypted PEM private key" if private else "a PEM public key"
        raise _fail(path, f"{field} of issuer {issuer!r}: {key_path} is not {kind}") from None
    if not isinstance(key, (rsa.RSAPrivateKey, rsa.RSAPublicKey)):
        raise _fail(path, f"{field} of issuer {issuer!r}: {key_path} is not an RSA key (LTI signs with RS256)")
    return data.decode("ascii")


def _registration(path: Path, issuer: str, entry: object) -> tuple[PlatformRegistration, str, str | None]:
    if not isinstance(entry, dict):
        raise _fail(path, f"issuer {issuer!r} must map to an object or a list of objects")
    missing = [k for k in _REQUIRED if k not in entry]
    if missing:
        raise _fail(path, f"issuer {issuer!r} lacks {', '.join(missing)}")
    if not entry.get("key_set_url") and not entry.get("key_set"):
        raise _fail(path, f"issuer {issuer!r} needs key_set_url (the platform's JWKS) or key_set")
    for field in ("client_id", "auth_login_url", "auth_token_url"):
        if not isinstance(entry[field], str) or not entry[field]:
            raise _fail(path, f"{field} of issuer {issuer!r} must be a non-empty string")
    deployments = entry["deployment_ids"]
    if not isinstance(deployments, list) or not all(isinstance(d, str) and d for d in deployments):
        raise _fail(path, f"deployment_ids of issuer {issuer!r} must be a list of strings")
    private = _key_file(path, issuer, entry, "private_key_file", private=True)
    public = _key_file(path, issuer, entry, "public_key_file", private=False) if entry.get("public_key_file") else None
    reg = PlatformRegistration(issuer=issuer, client_id=entry["client_id"], auth_login_url=entry["auth_login_url"],
                               auth_token_url=entry["auth_token_url"], auth_audience=entry.get("auth_audience"),
                               key_set_url=entry.get("key_set_url"), deployment_ids=tuple(deployments),
                               default=bool(entry.get("default", False)), static_key_set=bool(entry.get("key_set")))
    return reg, private, public


def load_tool_config(path: str | os.PathLike[str]) -> ToolConfig:
    """Read and check the file; :class:`LtiConfigError` names the first problem found."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise _fail(path, "file not found") from None
    except OSError as e:
        raise _fail(path, f"cannot read it ({e.strerror})") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise _fail(path, f"not valid JSON ({e})") from None
    if not isinstance(data, dict) or not data:
        raise _fail(path, "must be a JSON object mapping each platform issuer to its registration")
    registrations: list[PlatformRegistration] = []
    publics: list[tuple[PlatformRegistration, str, bool]] = []
    for issuer, value in data.items():
        entries = value if isinstance(value, list) else [value]
        if not entries:
            raise _fail(path, f"issuer {issuer!r} has an empty list of registrations")
        for entry in entries:
            reg, private, public = _registration(path, issuer, entry)
            if any(r.issuer == issuer and r.client_id == reg.client_id for r in registrations):
                raise _fail(path, f"issuer {issuer!r} lists client_id {reg.client_id!r} twice")
            registrations.append(reg)
            if public is None:  # derived, so that the JWKS can serve it without a second file
                public = _public_pem(private)
            publics.append((reg, public, isinstance(value, list)))
    try:
        pylti = ToolConfJsonFile(str(path))
    except Exception as e:  # pylti1p3 raises a bare Exception for every shape problem
        raise _fail(path, str(e).splitlines()[0] if str(e) else type(e).__name__) from None
    for reg, public, many in publics:
        pylti.set_public_key(reg.issuer, public, client_id=reg.client_id if many else None)
    return ToolConfig(path=path, pylti=pylti, registrations=tuple(registrations))


def _public_pem(private_pem: str) -> str:
    key = serialization.load_pem_private_key(private_pem.encode("ascii"), password=None)
    return key.public_key().public_bytes(serialization.Encoding.PEM,
                                         serialization.PublicFormat.SubjectPublicKeyInfo).decode("ascii")


def _write_private(target: Path, data: bytes) -> None:
    # mkstemp creates the file 0600 from the start: the key is never readable by others, even
    # for a moment, and os.replace makes the new file appear whole or not at all.
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o600)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def generate_key_pair(private_key_file: str | os.PathLike[str], public_key_file: str | os.PathLike[str],
                      bits: int = 2048, overwrite: bool = False) -> None:
    """Write a new RSA key pair (PEM, PKCS#8 and SubjectPublicKeyInfo), both files 0600.

    An existing key is kept unless ``overwrite``: replacing it breaks every platform that
    cached the old public key until they fetch the JWKS again."""
    private_path, public_path = Path(private_key_file), Path(public_key_file)
    for p in (private_path, public_path):
        if p.exists() and not overwrite:
            raise LtiConfigError(f"LTI key {p}: exists already (pass overwrite=True to replace it)")
        if not p.parent.is_dir():
            raise LtiConfigError(f"LTI key {p}: folder {p.parent} does not exist")
    key = rsa.generate_private_key(public_exponent=65537, key_size=bits)
    _write_private(private_path, key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                   serialization.NoEncryption()))
    _write_private(public_path, key.public_key().public_bytes(serialization.Encoding.PEM,
                                                              serialization.PublicFormat.SubjectPublicKeyInfo))
