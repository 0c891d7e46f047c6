#!/usr/bin/env python3
"""Writes Sources/PointApp/Resources/common-passwords.txt, the passwords PasswordPolicy refuses.

The list is made here from the patterns people use most, rather than copied from a leaked list:
the classic favourites, keyboard walks, digit runs, favourite words followed by a year or by
123, 1234 or "!", Japanese romaji favourites, and this site's own name (NIST SP 800-63B asks for
context-specific words too). Lowercase, one a line, sorted; only entries of 8 to 128 characters,
since PasswordPolicy refuses other lengths anyway. Run it again after changing a pattern.
"""
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUTPUT = os.path.join(ROOT, "Sources/PointApp/Resources/common-passwords.txt")
MIN_LENGTH, MAX_LENGTH = 8, 128

CLASSICS = """
password password1 password12 password123 password1234 password! passw0rd p@ssw0rd p@ssword
pa55word passwort motdepasse contrasena 12345678 123456789 1234567890 0123456789 987654321
87654321 0987654321 123123123 12341234 12344321 11223344 112233445566 123456123456 147258369
741852963 789456123 159753159753 1q2w3e4r 1q2w3e4r5t 1q2w3e4r5t6y q1w2e3r4 q1w2e3r4t5 1qaz2wsx
1qaz2wsx3edc zaq12wsx zaq1zaq1 !qaz2wsx qazwsxedc qazwsxedcrfv 1qazxsw2 123qweasd 123qweasdzxc
qweasdzxc qwe123qwe qwerty12 qwerty123 qwerty1234 abc12345 abc123456 abcd1234 abcdefgh
abcdefg1 aa123456 a1234567 a12345678 a1b2c3d4 asdf1234 qwer1234 zxcv1234 iloveyou iloveyou1
iloveyou2 iloveu123 sunshine sunshine1 football football1 baseball baseball1 basketball
princess princess1 superman batman123 spiderman starwars whatever trustno1 letmein1 letmein123
welcome1 welcome123 welcome! monkey12 monkey123 dragon12 dragon123 shadow12 shadow123 master12
master123 michael1 jennifer jordan23 liverpool chelsea1 arsenal1 computer internet corvette
mercedes maverick passport mustang1 charlie1 freedom1 killer12 hunter12 soccer12 hockey12
changeme changeme1 administrator adminadmin admin123 admin1234 root1234 rootroot guest123
test1234 testtest test12345 default1 secret123 hello123 hello1234 helloworld loveyou1
lovelove babygirl babygirl1 sweetheart butterfly chocolate pokemon1 fuckyou1 asshole1
blink182 matrix12 nicholas jessica1 ashley12 michelle1 daniel12 anthony1 samantha elizabeth
christopher alexander superstar qwertyqwerty asdfasdf zxcvzxcv q1q1q1q1 a1a1a1a1 aaaaaaaa
zzzzzzzz xxxxxxxx abcabcabc
"""

KEYBOARD_ROWS = ["1234567890", "qwertyuiop", "asdfghjkl", "zxcvbnm", "!@#$%^&*()"]

# Words people build passwords from: followed by a year or by a short suffix.
WORDS = """
love baby angel dragon monkey tiger lion eagle happy lucky magic sunny star super summer
winter spring autumn hello money pass welcome secret master admin qwerty shadow hunter
asdfgh killer soccer hockey michael jordan daniel jessica ashley charlie maggie buster pepper ginger
cookie peanut orange banana apple cherry flower rose blue red green black silver golden
purple diamond rainbow freedom family friend forever mother father sister brother zxcvbnm
iloveyou jesus god heaven music guitar rock metal party chicken coffee pizza beer hotdog
cat dog kitty puppy bunny bear panda mickey disney barbie spider batman superman naruto
sakura pokemon pikachu doraemon totoro anpanman hellokitty kawaii tokyo osaka kyoto nihon
nippon japan yuki hana hikari sora taro hanako ichiro ramen sushi neko inu
"""

ROMAJI = """
sakura doraemon pokemon pikachu arigatou arigato arigatougozaimasu daisuki daisuki1 aishiteru
aishiteru1 kawaii konnichiwa konbanwa ohayou ohayougozaimasu sayonara sayounara oyasumi
oyasuminasai ganbatte ganbare yoroshiku itadakimasu gochisousama otsukaresama moshimoshi
anpanman hellokitty totoro ghibli naruto onepiece luffy gundam ultraman kamenrider sailormoon
godzilla hamtaro kirby mario zelda dragonball doragonbooru evangelion jibanyan rilakkuma
sumikko hatsunemiku hatsune miku tsubasa shinkansen fujisan fujiyama hokkaido okinawa
yokohama nagoya fukuoka sapporo shibuya shinjuku akihabara tokyo osaka kyoto nippon nihon
nihongo japan tanaka suzuki satou takahashi watanabe yamamoto nakamura kobayashi yamada
takeshi hiroshi kenji satoshi yusuke daisuke takuya haruka yuuki misaki ayaka hanako taro
ichiro tanuki kitsune neko nekochan inuchan usagi kuma panda sushi ramen onigiri takoyaki
matcha sakurasaku hikari hoshizora taiyou tsuki kaze yume kibou shiawase
"""

# This site's name and what it is about.
CONTEXT = "pointapp poikatsu poikatu pointo pointosaito poinyo ankeeto anketo enquete survey pointget"

SHORT_SUFFIXES = ["1", "12", "123", "1234", "12345", "123456", "!", "!!", "1!", "123!", "01", "00", "11", "69", "77", "88", "99"]
YEARS = range(1950, 2031)


def words(text):
    return text.split()


def keyboard_walks():
    for row in KEYBOARD_ROWS:
        for text in (row, row[::-1]):
            for start in range(len(text)):
                for end in range(start + MIN_LENGTH, len(text) + 1):
                    yield text[start:end]
    yield "1234567890qwertyuiop"


def digit_runs():
    for digit in "0123456789":
        for length in range(MIN_LENGTH, 13):
            yield digit * length
    for a in "0123456789":
        for b in "0123456789":
            if a != b:
                yield (a + b) * 4
                yield (a + b) * 5
                yield (a * 2 + b * 2) * 2
    for length in range(MIN_LENGTH, 11):
        for start in range(10 - length + 1):
            run = "0123456789"[start:start + length]
            yield run
            yield run[::-1]


def with_years(names):
    for name in names:
        for year in YEARS:
            yield f"{name}{year}"
            yield f"{name}{year % 100:02d}"


def with_suffixes(names):
    for name in names:
        yield name
        for suffix in SHORT_SUFFIXES:
            yield name + suffix


def main():
    candidates = [
        *words(CLASSICS),
        *keyboard_walks(),
        *digit_runs(),
        *with_years(words(WORDS)),
        *with_suffixes(words(WORDS) + words(ROMAJI) + words(CONTEXT)),
    ]
    entries = sorted({c.lower() for c in candidates if MIN_LENGTH <= len(c) <= MAX_LENGTH})
    with open(OUTPUT, "w", encoding="utf-8") as f:
        f.write("".join(entry + "\n" for entry in entries))
    print(f"{len(entries)} entries written to {os.path.relpath(OUTPUT, ROOT)}")


if __name__ == "__main__":
    main()
