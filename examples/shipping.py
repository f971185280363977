"""Shipping helpers for the order module: the second example the quick start analyzes.

Written to show more than complexity: a walk through another object's parts,
string codes mapped to results, a class doing two unrelated jobs. The address
fields travel in a pack, but three parameters are not yet worth a hint.
"""

from __future__ import annotations


def validate_address(street, city, postcode):
    """True when the address looks deliverable."""
    return bool(street) and bool(city) and len(postcode) >= 4


def quote(street, city, postcode, weight_kg=1.0):
    base = 5.0 if city == "Amsterdam" else 7.5
    return base + weight_kg * 0.8 + (2.0 if not postcode.isdigit() else 0.0)


def print_label(name, street, city, postcode):
    return f"{name}\n{street}\n{postcode} {city}"


def schedule(day, slot, driver):
    return {"day": day, "slot": slot, "driver": driver}


def status_text(status):
    if status == "new":
        return "Waiting for payment"
    if status == "paid":
        return "Being packed"
    if status == "shipped":
        return "On its way"
    if status == "lost":
        return "Contact support"
    return "Unknown"


def invoice_line(order):
    line = f"{order.customer.name}: {order.total:.2f}"
    if order.coupon:
        line += f" (coupon {order.coupon})"
    if order.express:
        line += " express"
    if order.total > 100 and order.customer.tier == "gold":
        line += " free shipping"
    return line


def carrier_contact(shipment):
    if shipment is None:
        return None
    if not shipment.tracking:
        return "unknown"
    contact = shipment.carrier().regional_office(shipment.zone).desk().phone
    return contact or "none"


class Depot:
    """Stock in the depot, and the depot's van rota: two jobs in one class."""

    def __init__(self, name):
        self.name = name
        self.stock = {}
        self.rota = []

    def receive(self, sku, count):
        self.stock[sku] = self.stock.get(sku, 0) + count

    def pick(self, sku, count):
        if self.stock.get(sku, 0) < count:
            raise ValueError(sku)
        self.stock[sku] -= count

    def assign_van(self, van, day):
        self.rota.append((van, day))

    def vans_on(self, day):
        return [van for van, when in self.rota if when == day]
