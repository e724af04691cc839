"""Writing a user's files without ever writing through something else.

Every file ampsched writes (a report, a trace, a sweep's table, a reproduction's document and
figures, a machine file) goes through `write_atomically`: the bytes go to a temporary file in
the same directory, which is then renamed over the target. So a reader never sees half a file,
a failure (a full disk, Ctrl-C) leaves the old file as it was, and the target is replaced,
never written into: a symlink is not followed to overwrite what it points to.

Before any work, `check_output` refuses what must not be replaced, with one line naming the
option: an empty path, a missing directory, a directory, a symlink (its target would be
silently replaced by a regular file, or with a plain open() overwritten), and anything that
is not a regular file (a FIFO would block the writer forever, a device would be replaced by
a file). Whether an existing regular file may be replaced is the caller's rule: a report or a
trace is regenerated at will; a sweep's results are not (see _sweep._check_output).
"""

import os
import stat
import tempfile


def input_error(message: str) -> ValueError:
    """The package's error for bad input: ampsched.InputError (a ValueError; the engine's, or its
    stand-in where the engine is not built)."""
    from . import InputError

    return InputError(message)


def text_arg(name: str, value) -> str:
    """A path or spec given to the package: str or os.PathLike, and UTF-8 text (a file name may
    hold bytes that are not; the engine names files in UTF-8 messages). InputError otherwise."""
    try:
        value = os.fspath(value)
    except TypeError:
        raise input_error(f"{name}: expected a string or path, got {type(value).__name__}") from None
    if isinstance(value, bytes):
        raise input_error(f"{name}: give the path as a string, got bytes")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise input_error(f"{name}: not UTF-8 text: {value[:80]!r}") from None
    return value


def check_output(option: str, path) -> str:
    """`path` as a str if ampsched may write it; InputError naming `option` otherwise."""
    prefix = f"{option}: " if option else ""
    path = text_arg(option or "path", path)
    if path == "":
        raise input_error(f"{prefix}the path is empty")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise input_error(f"{prefix}{path}: directory {folder} does not exist")
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return path
    except OSError as error:
        raise input_error(f"{prefix}{path}: {error.strerror or error}") from None
    if stat.S_ISLNK(mode):
        raise input_error(f"{prefix}{path}: is a symbolic link: give the file it points to, or another name")
    if stat.S_ISDIR(mode):
        raise input_error(f"{prefix}{path}: is a directory")
    if not stat.S_ISREG(mode):
        raise input_error(f"{prefix}{path}: not a regular file ({_kind(mode)}): give a file name")
    return path


def _kind(mode: int) -> str:
    for test, name in (
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
    ):
        if test(mode):
            return name
    return "not a file"


def write_atomically(path, data=None, write=None, option: str = "") -> None:
    """Write `data` (bytes or str, UTF-8), or whatever `write(temporary_path)` writes, to
    `path` through a temporary file in its directory renamed over it. The target is checked
    again just before the rename (`check_output`), so a symlink or FIFO put there while the
    work ran is refused too. The file gets the permissions a plain open() would give it."""
    path = check_output(option, path)
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{os.path.basename(path)[:64]}.", suffix=".tmp")
    try:
        if write is None:
            with os.fdopen(fd, "wb") as f:
                f.write(data.encode("utf-8") if isinstance(data, str) else data)
        else:
            os.close(fd)
            write(tmp)
        os.chmod(tmp, 0o666 & ~_umask())
        check_output(option, path)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
