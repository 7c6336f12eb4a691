"""Set up two-factor sign-in (TOTP) for a staff account, or reset it.

    manage.py otp_device USERNAME            # a new (unconfirmed) device: prints its URI and QR code
    manage.py otp_device USERNAME --code N   # confirm it with the code the app shows
    manage.py otp_device USERNAME --reset    # remove the account's devices (lost phone)

The person can also do it alone on the page "Two-factor sign-in" (/staff/manager/security/
two-factor/). Only a confirmed device is asked for at sign-in.
"""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from django_otp.plugins.otp_totp.models import TOTPDevice

from casino.access.security import is_staff_member, otp_device_confirm
from casino.audit import audit_record


class Command(BaseCommand):
    help = "Enrol, confirm or reset a staff account's TOTP device (two-factor sign-in)."

    def add_arguments(self, parser):
        parser.add_argument("username")
        group = parser.add_mutually_exclusive_group()
        group.add_argument("--code", help="confirm the pending device with this 6-digit code")
        group.add_argument("--reset", action="store_true", help="remove every TOTP device of the account")
        parser.add_argument("--no-qr", action="store_true", help="print the URI only, no terminal QR code")

    def handle(self, *args, username, code=None, reset=False, no_qr=False, **options):
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            raise CommandError(f"No user {username!r}.")
        if not is_staff_member(user):
            raise CommandError(f"{username} is not staff: two-factor sign-in is for staff accounts.")
        if reset:
            with transaction.atomic():
                devices = list(TOTPDevice.objects.filter(user=user))
                for device in devices:
                    audit_record(
                        actor=None,
                        action="otp.device_removed",
                        obj=device,
                        before={"user": username, "device": device.name, "confirmed": device.confirmed},
                        after=None,
                    )
                    device.delete()
            self.stdout.write(self.style.SUCCESS(f"Removed {len(devices)} device(s) of {username}."))
            return
        if TOTPDevice.objects.filter(user=user, confirmed=True).exists():
            raise CommandError(f"{username} already has a confirmed device; --reset it first.")
        device = TOTPDevice.objects.filter(user=user, confirmed=False).order_by("id").first()
        if code is not None:
            if device is None:
                raise CommandError("No pending device: run without --code first.")
            if not device.verify_token(code.replace(" ", "")):
                raise CommandError("That code is not right (check the phone's clock and use the current code).")
            otp_device_confirm(device=device, actor=None)
            self.stdout.write(self.style.SUCCESS(f"Two-factor sign-in is on for {username}."))
            return
        if device is None:
            device = TOTPDevice.objects.create(user=user, name="Authenticator app", confirmed=False)
        self.stdout.write(f"Provisioning URI for {username} (scan it, or enter it in the app):")
        self.stdout.write(device.config_url)
        if not no_qr:
            import segno

            segno.make(device.config_url, error="m").terminal(out=self.stdout, compact=True)
        self.stdout.write(
            f"Then confirm: manage.py otp_device {username} --code <6 digits>, "
            "or sign in and enter a code on the 'Two-factor sign-in' page."
        )
