def list_forms(strategy="no", warmup=0, config=None, deepspeed=None):
    """
    Lists, as CommonMark reads them:
    - right under a line of text;
    - with no blank line.

    Steps, in order:
    1. first;
    2. second.

    Args:
        strategy (`str`, *optional*, defaults to `"no"`):
            Possible values are:
                - `"no"`: indented deeper than its text.
                  Its continuation line.
                - `"steps"`: the next item.
            After the list.
        warmup (`int` or `float`, *optional*, defaults to 0): Can be:
            - an integer: a number of steps;
            - a float in [0, 1): a ratio.
        config (`str` or `dict`, *optional*):
            Can be:
                - a path;
                - a dictionary.
            Key options:
                - `split` (`bool`): after a line that continues the item above.
        deepspeed (`str` or `dict`, *optional*):
             The first line one space further in. Value is either:
                - a path;
                - a dictionary.
    """
