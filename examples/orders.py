"""A small order-handling module, written the way real code drifts: the example
that the README's quick start analyzes. Several functions sit inside the advise
band of one metric or another, so ``gz complexity guide examples/`` has things to say.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Customer:
    name: str
    country: str
    tier: str = "standard"
    credit: float = 0.0


@dataclass
class Order:
    customer: Customer
    lines: list[tuple[str, int, float]] = field(default_factory=list)
    coupon: str | None = None
    status: str = "new"


def shipping_cost(order, express, weight_kg, insured):
    """Price the shipping of an order."""
    cost = 4.0
    if order.customer.country != "NL":
        if order.customer.country in ("BE", "DE", "FR"):
            cost += 6.0
        else:
            if weight_kg > 20:
                cost += 40.0
            else:
                cost += 18.0
    if express:
        cost *= 2
    if insured:
        cost += 3.5
    return cost


def describe(event):
    """A one-line description of whatever happened to an order."""
    if isinstance(event, dict):
        return "payload with " + ", ".join(sorted(event))
    elif isinstance(event, list):
        return f"{len(event)} grouped events"
    elif isinstance(event, str):
        return event
    elif isinstance(event, Order):
        return f"order for {event.customer.name}"
    return repr(event)


def total(order: Order) -> float:
    amount = sum(qty * price for _, qty, price in order.lines)
    if order.coupon == "WELCOME10":
        amount *= 0.9
    return round(amount, 2)


class OrderBook:
    """Keeps orders and answers questions about them."""

    def __init__(self) -> None:
        self.orders: list[Order] = []
        self.audit: list[str] = []

    def add(self, order: Order) -> None:
        self.orders.append(order)
        self.audit.append(f"added {order.customer.name}")

    def overdue(self) -> list[Order]:
        late = []
        for order in self.orders:
            if order.status == "shipped":
                continue
            for sku, qty, _price in order.lines:
                if qty > 0 and sku.startswith("BO-"):
                    late.append(order)
                    break
        return late

    def summary(self) -> str:
        return f"{len(self.orders)} orders, {len(self.audit)} audit lines"
