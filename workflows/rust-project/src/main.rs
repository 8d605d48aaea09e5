fn main() {
    println!("hello from greet");
}

#[cfg(test)]
mod tests {
    #[test]
    fn greets() {
        assert_eq!(2 + 2, 4);
    }
}
