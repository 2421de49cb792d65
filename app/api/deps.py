from typing import Annotated

from fastapi import Depends, Request

from app.core.config import Settings


async def app_settings(request: Request) -> Settings:
    # async on purpose: FastAPI runs a sync dependency in the thread pool, a hop per request.
    return request.app.state.settings


SettingsDep = Annotated[Settings, Depends(app_settings)]
