"""Public values that look random are kept; secrets of the same shapes are not."""

from __future__ import annotations

import pytest

from bot.memory.secrets.detector import redact_secrets


@pytest.mark.parametrize(
    "text",
    [
        "the fix is in commit 43be4de8db4947f39b8868767611088d01378225, pull main first",
        "pin the image to ghcr.io/home-assistant/home-assistant@sha256:"
        "7bffb6aaf423e6ed8c4b4a95db3ea22dfe9029629fa947bab3ae8e9ea7c72bb0 please",
        "backup drive UUID is 1d9acbce-4045-4a23-9343-a69947f69ce3, that's what goes in fstab",
        "fstab line: UUID=3b1f0c9e-88d2-4a51-b6e0-7c2d9f41a0e3 /mnt/backup ext4 defaults 0 2",
        "add my laptop key to the pi please: ssh-ed25519 "
        "AAAAC3NzaC1lZDI1NTE5AAAAIxRzLyYmVKxZyIj1LKllfWD42sZboHdIkKs9bP1ZBeLI joao@thinkpad",
        "new peer: [Peer] PublicKey = GEa7agiPeN7luE7B1VeinEYaCXnCO7NwMMEFgpQ/HhI= "
        "AllowedIPs = 10.8.0.7/32",
        "sha256sum of the debian netinst iso should be "
        "92a283a2043d77faecbaa4ff21db0c2e0b03dd475c5a6cd981f939451e0f1a36, check it",
        "server host key fingerprint is SHA256:U2YszSujYMWKvOIZCrqVvi/2D8SB+yMLEWBXydh8ABA",
        "tips for the blog can go to bc1qxy2kgdygjrsqtzq2n0yrf2493p83kkfjhx0wlh",
        "age recipient for backups: age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p",
        "compose uses password: ${DB_PASSWORD} from the .env file",
        "restic repo is b2:family-backups:/restic, the password is in bitwarden under 'restic'",
    ],
)
def test_public_values_are_kept(text: str) -> None:
    assert redact_secrets(text) == text


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("my api key is 1d9acbce-4045-4a23-9343-a69947f69ce3", "1d9acbce"),
        ("wireguard PrivateKey = GEa7agiPeN7luE7B1VeinEYaCXnCO7NwMMEFgpQ/HhI=", "GEa7"),
        ("the hash of my password is 5f4dcc3b5aa765d61d8327deb882cf99", "5f4dcc3b"),
        ("the token is 43be4de8db4947f39b8868767611088d01378225", "43be4de8"),
        ("quick test: curl -u admin:Plexrocks-2024 http://192.168.1.20:8080/api", "Plexrocks"),
        (
            "bitwarden master password, in case something happens: Marmalade Tractor 1987!",
            "Tractor",
        ),
        ("códigos de recuperação do google do pai: 6281 4407, 9913 0265", "9913"),
        ("Hash browns for breakfast! Oh and the card is 4532015112830366, pay it.", "45320151"),
        ("I use fingerprint unlock, the backup PIN is 20481632", "20481632"),
        ("commit to memory: my PIN is 48213377", "48213377"),
        ("access key: 1d9acbce-4045-4a23-9343-a69947f69ce3", "1d9acbce"),
        ("the credentials for the NAS are admin and 1d9acbce-4045-4a23-9343-a69947f69ce3", "1d9a"),
        ("O meu endereço de email e a chave da api: Ab9dEf1234567890XyZaBcD12kLm", "Ab9dEf"),
        (
            "wallet address backup, private: 5Kb8kLf9zgWQnogidDA76MzPL6TsZZY36hWXMssSzNydYXYB9KF",
            "5Kb8",
        ),
        ("my zip is 90210 and my card pin is 4821", "4821"),
        ("PIN for my Indian SBI card is 4821", "4821"),
    ],
)
def test_secrets_of_the_same_shapes_are_withheld(text: str, value: str) -> None:
    redacted = redact_secrets(text)
    assert value not in redacted, redacted
