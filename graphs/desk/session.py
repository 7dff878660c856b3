"""Signing in to the desk with a token the server already accepts (graphs.auth).

The login form takes the user's token; the desk checks it by asking the server's own API (a search of the
user's studies, which the auth handler admits or refuses with a 401 in words) and keeps it in a cookie that
scripts cannot read (``HttpOnly``), sent only to the desk's own pages (``Path=/desk``) and never with a
request another site starts (``SameSite=Strict``, which is also what keeps another site from posting the
desk's forms). Every page forwards it as ``Authorization: Bearer <token>``; the desk holds no users or
passwords of its own. The name shown on the pages comes from the same handler.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response

__all__ = ["COOKIE", "token_of", "check_token", "identity", "set_token", "clear_token"]

COOKIE = "aquascope_desk"
MAX_TOKEN = 4096


def token_of(request: Request) -> str | None:
    token = (request.cookies.get(COOKIE) or "").strip()
    return token or None


async def identity(token: str) -> str | None:
    """The user the server's auth handler names for ``token`` (None when it refuses the token)."""
    try:
        from graphs.auth import authenticate

        user = await authenticate(f"Bearer {token}")
    except Exception:
        return None
    return str(user.get("identity")) if isinstance(user, dict) else None


async def check_token(token: str) -> str:
    """The signed-in user's name, after the server's API accepted ``token``; ApiError in words otherwise."""
    from graphs.desk.api import ApiError, connect, describe_error

    token = (token or "").strip()
    if not token:
        raise ApiError("Enter your access token: the token the operator gave you for this server "
                       "(the one you send as 'Authorization: Bearer <token>').", 400)
    if len(token) > MAX_TOKEN or any(c.isspace() for c in token):
        raise ApiError("That is not a token: a token is one word with no spaces, as the operator gave it.", 400)
    try:
        async with connect(token) as client:
            await client.threads.search(limit=1)
    except Exception as exc:
        err = describe_error(exc, "sign in")
        if err.status == 401:
            raise ApiError("The server does not know that token (it may be mistyped or revoked). "
                           "Ask the operator for yours.", 401) from None
        raise err from None
    return await identity(token) or "you"


def set_token(response: Response, request: Request, token: str) -> None:
    response.set_cookie(COOKIE, token, httponly=True, samesite="strict", path="/desk",
                        secure=request.url.scheme == "https", max_age=12 * 3600)


def clear_token(response: Response) -> None:
    response.delete_cookie(COOKIE, path="/desk")


def wants_login(request: Request) -> Any:
    """Where to send someone with no token: the login page, remembering the page they asked for."""
    from urllib.parse import quote

    from starlette.responses import RedirectResponse

    target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
    return RedirectResponse(f"/desk/login?next={quote(target)}", status_code=303)
