"""factory_boy factories for people and accounts; they go through the services where money is involved."""

from __future__ import annotations

from typing import Any

import factory

from casino.models import Role, User
from ledger.models import AccountKind, AccountPurpose
from ledger.services import open_account

PASSWORD = "correct-horse-battery-42"


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = User
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"user{n}")
    name = factory.Faker("name")
    role = Role.DEALER
    password = factory.PostGenerationMethodCall("set_password", PASSWORD)

    @classmethod
    def _after_postgeneration(cls, instance: User, create: bool, results: Any = None) -> None:
        if create:
            instance.save()


def staff(role: str, **kwargs: Any) -> User:
    return UserFactory(role=role, **kwargs)


def wallet_account(code: str, **kwargs: Any) -> Any:
    return open_account(code=code, kind=AccountKind.LIABILITY, purpose=AccountPurpose.WALLET, **kwargs)


def token_for(user: User) -> str:
    from casino.services import issue_token

    return issue_token(user=user)
