"""stub"""


def draw(root):
    return {}
