from pydantic import BaseModel


class Ticket(BaseModel):
    number: int
    title: str = ""
    comments: list[str] = []
    closed: bool | None = None
